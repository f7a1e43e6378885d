"""Validates KCIDB JSON files against kcidb-io's own schema (KernelCI's library), for `make
test`: prints each file's counts, exits 1 on the first invalid one (with the schema's error),
2 when it cannot run.

Usage: PYTHON tools/kcidb_validate.py FILE...
"""
import json
import sys

try:
    import kcidb_io
except ImportError as e:
    sys.exit(f"kcidb_validate: error: {e}: run `make ci-tools` (kcidb-io into the cache)")


def main(paths):
    if not paths:
        sys.exit("usage: kcidb_validate.py FILE...")
    schema = kcidb_io.schema.LATEST
    for path in paths:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        try:
            schema.validate_exactly(data)
        except Exception as e:  # jsonschema's ValidationError, or kcidb-io's own
            print(f"{path}: not valid KCIDB {schema.major}.{schema.minor}: {e}", file=sys.stderr)
            return 1
        counts = ", ".join(f"{len(data.get(k, []))} {k}" for k in ("checkouts", "builds", "tests"))
        print(f"{path}: valid KCIDB {schema.major}.{schema.minor}: {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
