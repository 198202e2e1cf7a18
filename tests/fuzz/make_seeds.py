#!/usr/bin/env python3
"""Writes the fuzzer's seed inputs: every *.hlo file of the corpus, and every module string of
the corpus' bulk_xla_test_hlo_strings.jsonl.gz, one file each, into an empty SEEDS directory.

Usage: make_seeds.py CORPUS_DIR SEEDS_DIR
"""
import gzip
import hashlib
import json
import pathlib
import shutil
import sys


def main() -> int:
    corpus, seeds = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    if seeds.exists():
        shutil.rmtree(seeds)
    seeds.mkdir(parents=True)
    count = 0

    def write(data: bytes) -> None:
        nonlocal count
        (seeds / hashlib.sha1(data).hexdigest()).write_bytes(data)
        count += 1

    for path in sorted(corpus.rglob("*.hlo")):
        write(path.read_bytes())
    for path in sorted(corpus.rglob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            for line in lines:
                text = json.loads(line).get("text")
                if text:
                    write(text.encode("utf-8"))
    if count == 0:
        print(f"make_seeds.py: no .hlo or .jsonl.gz files under {corpus}", file=sys.stderr)
        return 1
    print(f"make_seeds.py: {count} seeds in {seeds}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
