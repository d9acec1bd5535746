#!/usr/bin/env python3
"""The documents quote dlrmsim's output: in README.md and docs/*.md, a code block that starts
with `$ build/dlrmsim ...` (continued over lines ending in `\\`) shows what that command
prints. Every line shown after the command, except elisions (`...`), must be a line of the
command's output, in order, so the figures quoted cannot drift. A block whose command line
ends in a `#` comment is a condensed summary and is not checked.
Usage: docs_outputs.py DLRMSIM SOURCE_DIR"""
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

dlrmsim, root = sys.argv[1], sys.argv[2]
update = "--update" in sys.argv[3:]
scratch = tempfile.mkdtemp(prefix="dlrmsim_docs_outputs_")


def fenced_blocks(text):
    """The contents of the fenced code blocks without an info string (a fence with one, such as
    ```bash, is skipped whole), each ending in a newline: fences are paired in order, so the
    closing fence of one block never opens the next."""
    blocks, current, plain = [], None, False
    for line in text.split("\n"):
        if line.startswith("```"):
            if current is None:
                current, plain = [], line.strip() == "```"
            else:
                if plain:
                    blocks.append("\n".join(current) + "\n")
                current = None
        elif current is not None:
            current.append(line)
    return blocks


files = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
failures, checked = [], 0
for path in files:
    text = open(path, encoding="utf-8").read()
    for block in fenced_blocks(text):
        lines = block.split("\n")
        if not lines[0].startswith("$ build/dlrmsim "):
            continue
        command = lines[0][2:]
        i = 1
        while command.endswith("\\"):
            command = command[:-1] + " " + lines[i].strip()
            i += 1
        if "#" in command or any(l.startswith("$ ") for l in lines[i:]):
            continue
        words = shlex.split(command, posix=False)
        for k in range(1, len(words)):
            if words[k - 1] in ("-o", "--front", "--chart", "--json") and words[k] != "-":
                words[k] = shlex.quote(os.path.join(scratch, os.path.basename(words[k])))
        shell = " ".join([shlex.quote(dlrmsim)] + words[1:])
        out = subprocess.run(["bash", "-c", shell], cwd=root, capture_output=True, text=True).stdout.split("\n")
        if update:
            def label(l):
                return l[: len(l) - len(l.lstrip())] + l.split()[0] + " "
            new, at = lines[:i], 0
            for l in lines[i:]:
                if l.strip() in ("", "..."):
                    new.append(l)
                    continue
                j = next((k for k in range(at, len(out)) if out[k].startswith(label(l))), None)
                if j is None:  # a row led by a figure: the row with the same last word
                    j = next((k for k in range(at, len(out)) if out[k].split()[-1:] == l.split()[-1:]), None)
                new.append(l if j is None else out[j])
                at = at if j is None else j + 1
            text = text.replace(block, "\n".join(new), 1)
            continue
        at = 0
        for line in (l for l in lines[i:] if l.strip() not in ("", "...")):
            try:
                at = out.index(line, at) + 1
            except ValueError:
                failures.append(f"{os.path.relpath(path, root)}: `{command}` does not print (in order):\n  {line}")
                break
        checked += 1
    if update:
        open(path, "w", encoding="utf-8").write(text)
if failures:
    sys.exit("\n".join(failures) + "\nRe-run each command and copy its output into the document.")
print(f"{checked} quoted command outputs are what the commands print")
