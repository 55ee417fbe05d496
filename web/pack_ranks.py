#!/usr/bin/env python3
"""Packs a .tiktoken rank file for the page (docs/web.md#asking-from-the-page):
each token's bytes after one byte of their length, in rank order, gzipped.
The page unpacks it into the .tiktoken text it was made from (web/page.js):
the ranks must be 0, 1, 2, ... in order, and no token longer than 255 bytes.
About 40% of the gzipped text, which is base64.

usage: pack_ranks.py RANKS.tiktoken OUT.gz
"""

import base64
import gzip
import os
import sys


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    packed = bytearray()
    with open(argv[1], "rb") as f:
        for number, line in enumerate(f):
            token, rank = line.split()
            data = base64.b64decode(token, validate=True)
            if int(rank) != number or len(data) > 255:
                print(f"pack_ranks.py: {argv[1]}:{number + 1}: rank {int(rank)} of {len(data)} bytes "
                      "(expected the ranks in order, tokens of at most 255 bytes)", file=sys.stderr)
                return 1
            packed.append(len(data))
            packed += data
    with open(argv[2] + ".tmp", "wb") as out:
        out.write(gzip.compress(bytes(packed), compresslevel=9, mtime=0))
    os.replace(argv[2] + ".tmp", argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
