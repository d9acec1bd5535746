#!/usr/bin/env python3
"""docs/validation.md's table of the validation cases, generated from validation/expected.json
(what `dlrmsim validate validation/cases --json validation/expected.json` records and
tests/test_validation_cases.cpp holds to the simulation), so that it is never synced by hand.
The table sits between the two marker lines below in docs/validation.md.
Usage: validation_table.py SOURCE_DIR [--update]   (without --update: exit 1 when it differs)"""
import json
import os
import sys

BEGIN = "<!-- validation table: tools/validation_table.py writes it from validation/expected.json -->"
END = "<!-- end of the validation table -->"


def figure(text):
    """'6.458e+06' -> '6.46 M'; words and lists as they are."""
    try:
        v = float(text)
    except (TypeError, ValueError):
        return text
    for scale, prefix in ((1e9, " G"), (1e6, " M"), (1e3, " k")):
        if abs(v) >= scale:
            return f"{v / scale:.3g}{prefix}"
    return f"{v:.3g}"


def table(expected):
    rows = ["| case | predicted | published | error | tolerance | within | case file |", "|---|---|---|---|---|---|---|"]
    for c in expected["cases"]:
        error = f"{100 * c['error']:+.1f} %" if "error" in c else ""
        tolerance = f"{100 * c['tolerance']:.0f} %" if "tolerance" in c else "same choice"
        predicted = figure(c["predicted"])
        if "decided_by" in c:
            predicted += f" (decided by: {c['decided_by']})"
        cells = [c["case"], predicted, figure(c["published"]), error, tolerance, "yes" if c["passed"] else "**no**",
                 f"`{c['file']}`"]
        rows.append("| " + " | ".join(str(x).replace("|", "/") for x in cells) + " |")
    rows.append("")
    rows.append(f"{len(expected['cases'])} cases; median absolute error {100 * expected['median_abs_error']:.1f} %, "
                f"worst {100 * expected['worst_abs_error']:.0f} %; {expected['failed']} outside their tolerance.")
    return "\n".join(rows)


root = sys.argv[1]
doc_path = os.path.join(root, "docs", "validation.md")
expected = json.load(open(os.path.join(root, "validation", "expected.json"), encoding="utf-8"))
doc = open(doc_path, encoding="utf-8").read()
if BEGIN not in doc or END not in doc:
    sys.exit(f"{doc_path}: the markers of the generated table are missing:\n  {BEGIN}\n  {END}")
head, rest = doc.split(BEGIN, 1)
_, tail = rest.split(END, 1)
new = head + BEGIN + "\n" + table(expected) + "\n" + END + tail
if "--update" in sys.argv[2:]:
    open(doc_path, "w", encoding="utf-8").write(new)
elif new != doc:
    sys.exit(f"{doc_path}: its validation table is not validation/expected.json's; run "
             f"`python3 tools/validation_table.py . --update` and review the diff")
else:
    print(f"docs/validation.md's table is validation/expected.json's ({len(expected['cases'])} cases)")
