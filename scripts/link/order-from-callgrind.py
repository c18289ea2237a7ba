#!/usr/bin/env python3
"""order-from-callgrind.py BINARY CALLGRIND_OUT... [--then CALLGRIND_OUT...] > heartd.order

The functions of BINARY that the callgrind dumps show running (self cost > 0), hottest first, one mangled symbol a
line: lld's --symbol-ordering-file (scripts/build-release.sh) places them together at the start of .text. Each
dump counts by its own shares (a function's self cost over the dump's total in BINARY), so a short window weighs
as much as a long one. The dumps after --then (the periodic work: series rotations and saves) add their functions
not listed yet after the others, so that work lies together too without spreading the steady state's pages. Names valgrind could not give (bare addresses) and symbols not defined in BINARY are left out.
The dumps should be taken with --demangle=no (scripts/link/callgrind-heartd.sh): the linker matches mangled names.
"""
import re
import subprocess
import sys

NAMED = re.compile(r"^(c?(?:ob|fn|fl|fi|fe))=(?:\((\d+)\))?\s*(.*)$")


def self_costs(path, obj):
    """Self cost (the first event, Ir) per function of the object whose file name is obj."""
    names = {"ob": {}, "fn": {}}
    ob = fn = None
    costs = {}
    call_cost_next = False
    for line in open(path, errors="replace"):
        m = NAMED.match(line)
        if m:
            kind, ident, name = m.group(1), m.group(2), m.group(3).strip()
            table = names.get(kind.lstrip("c"))
            if table is not None and ident:
                if name:
                    table[ident] = name
                else:
                    name = table.get(ident, "")
            if kind == "ob":
                ob = name
            elif kind == "fn":
                fn = name
            continue
        if line.startswith("calls="):
            call_cost_next = True  # the next cost line is the call's inclusive cost, not this function's own
            continue
        if line[:1].isdigit() or line[:1] in "+-*":
            if call_cost_next:
                call_cost_next = False
                continue
            parts = line.split()
            if len(parts) >= 2 and ob and ob.rsplit("/", 1)[-1] == obj and int(parts[1]):
                name = fn.split("'")[0]  # callgrind marks recursion and context levels as name'2
                costs[name] = costs.get(name, 0) + int(parts[1])
    return costs


def scores(binary, dumps, defined):
    """Each function's summed share of the dumps' self cost in binary."""
    score = {}
    for path in dumps:
        costs = self_costs(path, binary.rsplit("/", 1)[-1])
        total = sum(costs.values()) or 1
        for name, cost in costs.items():
            if name in defined:
                score[name] = score.get(name, 0.0) + cost / total
    return score


def main():
    args = sys.argv[1:]
    if len(args) < 2 or args[1] == "--then":
        sys.exit(__doc__)
    binary, args = args[0], args[1:]
    split = args.index("--then") if "--then" in args else len(args)
    tiers = [args[:split], args[split + 1:]]
    nm = subprocess.run(["nm", "--defined-only", "--no-demangle", binary], check=True, capture_output=True,
                        text=True, errors="replace").stdout
    defined = {f[2] for f in (l.split() for l in nm.splitlines()) if len(f) == 3 and f[1] in "tTwW"}
    listed = set()
    for dumps in tiers:
        score = scores(binary, dumps, defined)
        for name in sorted(score.keys() - listed, key=lambda n: (-score[n], n)):
            print(name)
        listed |= score.keys()


if __name__ == "__main__":
    main()
