#!/usr/bin/env python3
"""Exit 0 when a PNG screenshot shows something: at least MIN_INK of its pixels differ from
its most common colour (the background). Only the standard library: zlib and the PNG
filters (8-bit RGB or RGBA, not interlaced: what Chromium writes).
Usage: png_not_blank.py FILE.png [MIN_INK=0.01]"""
import collections
import struct
import sys
import zlib


def pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("%s: not a PNG file" % path)
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                sys.exit("%s: unsupported PNG (depth %d, colour type %d)" % (path, depth, colour))
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    previous = bytearray(stride)
    for row in range(height):
        start = row * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up = previous[i]
            corner = previous[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        previous = line
        for x in range(0, stride, bpp):
            yield bytes(line[x:x + 3])


counts = collections.Counter(pixels(sys.argv[1]))
total = sum(counts.values())
background, most = counts.most_common(1)[0]
ink = 1.0 - most / total
minimum = float(sys.argv[2]) if len(sys.argv) > 2 else 0.01
print("%s: %d pixels, %.1f %% differ from the background %s" % (sys.argv[1], total, 100 * ink, background.hex()))
sys.exit(0 if ink >= minimum else 1)
