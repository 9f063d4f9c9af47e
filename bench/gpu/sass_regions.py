#!/usr/bin/env python3
"""Split an Nsight Compute source page (SASS, CSV) into the kernel's regions.

Input: the output of
  ncu -i REPORT --page source --csv --print-source sass
for one kernel with the SourceCounters section. The key loop is taken as
the predicated backward branch whose range holds the most HGMMA
instructions; the
stall samples (all, and not issued) are summed before it (prologue:
launch, barriers, Q, the first tile), inside it, and after it (the last
P*V, the normalization, the O store), with the ten instructions that drew
the most samples in each region.

Usage: python3 sass_regions.py SOURCE.csv
"""
import csv
import re
import sys


def num(s):
    s = (s or "").replace(",", "").strip()
    try:
        return float(s)
    except ValueError:
        return 0.0


def main(path):
    with open(path, newline="") as f:
        lines = f.read().splitlines()
    # Skip ncu's preamble up to the header row.
    start = next(i for i, l in enumerate(lines) if '"Address"' in l or l.startswith("Address") or '"# Address"' in l)
    rows = list(csv.reader(lines[start:]))
    head = rows[0]

    def col(*keys):
        for i, h in enumerate(head):
            if all(k in h for k in keys):
                return i
        return None

    ca, cs = col("Address"), col("Source")
    call = col("Warp Stall Sampling (All")
    cni = col("Warp Stall Sampling (Not")
    cex = col("Instructions Executed")
    if ca is None or cs is None or call is None:
        print("columns not found:", head)
        return 1
    ins = []
    for r in rows[1:]:
        if len(r) <= max(ca, cs, call):
            continue
        try:
            addr = int(r[ca], 16)
        except ValueError:
            continue
        ins.append((addr, r[cs].strip(), num(r[call]), num(r[cni]) if cni is not None else 0.0,
                    num(r[cex]) if cex is not None else 0.0))
    ins.sort()
    idx = {a: i for i, (a, *_) in enumerate(ins)}
    best = None
    for i, (a, s, *_) in enumerate(ins):
        # A loop's back edge is a predicated branch; the unconditional ones
        # back into the code are the returns of out-of-line retry blocks
        # (mbarrier try-waits placed after the kernel's end).
        m = re.search(r"^\s*@!?U?P\d\s+BRA\b.*?(0x[0-9a-f]+)", s)
        if not m:
            continue
        t = int(m.group(1), 16)
        if t >= a or t not in idx:
            continue
        j = idx[t]
        n = sum(1 for k in range(j, i + 1) if "HGMMA" in ins[k][1])
        if n and (best is None or n > best[2]):
            best = (j, i, n)
    if best is None:
        print("no loop with HGMMA found; labels:", [s for _, s, *_ in ins if "BRA" in s][:10])
        return 1
    j, i, n = best
    regions = {"prologue": ins[:j], "key loop": ins[j:i + 1], "epilogue": ins[i + 1:]}
    tot = sum(x[2] for x in ins) or 1
    print(f"{len(ins)} SASS instructions; key loop {hex(ins[j][0])}-{hex(ins[i][0])} "
          f"({i - j + 1} instructions, {n} HGMMA); {tot:.0f} stall samples in all")
    for name, rs in regions.items():
        s = sum(x[2] for x in rs)
        ni = sum(x[3] for x in rs)
        print(f"\n== {name}: {len(rs)} instructions, {s:.0f} samples ({100 * s / tot:.1f}%), "
              f"not issued {ni:.0f}")
        for a, src, al, nis, ex in sorted(rs, key=lambda x: -x[2])[:10]:
            print(f"  {a:#07x} {al:8.0f} {nis:8.0f}  {src[:90]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
