#!/usr/bin/env python3
"""Counts the PTX instructions of each kernel's main loop: the outermost
natural loop that issues wgmma.mma_async (or mma.sync), so that changes to
the code between the gemms can be measured without a GPU.

A PTX instruction is a statement ending in ';' that is not a directive
(.reg, .loc, ...) nor a brace; the setp and the wgmma inside the inline asm
of each wgmma count (two each). Counts are static: both sides of an if in
the loop (a guarded mask) count, and the mbarrier spin loops count once.
Also printed: the loop's ex2, fma, max, shfl and cvt counts.

Usage: loop_ptx.py FILE.ptx [...]
"""
import re
import sys


def kernels(text):
    for m in re.finditer(r"\.entry\s+(\w+)\(", text):
        start = text.index("{", text.index(")", m.end()))
        depth, i = 0, start
        while True:
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        yield m.group(1), text[start + 1:i]


def blocks(body):
    """[(label, [instruction lines])] in layout order."""
    out = [(None, [])]
    for line in body.splitlines():
        s = line.strip()
        if not s or s.startswith("//"):
            continue
        m = re.match(r"^(\$\w+):$", s)
        if m:
            out.append((m.group(1), []))
            continue
        out[-1][1].append(s)
    return out


def is_inst(s):
    return s.endswith(";") and not s.startswith(".") and s not in ("{", "}")


def main_loop(bbs):
    idx = {lab: i for i, (lab, _) in enumerate(bbs) if lab}
    succ = []
    for i, (_, insts) in enumerate(bbs):
        s = set()
        falls = True
        for x in insts:
            m = re.search(r"\bbra(?:\.uni)?\s+(\$\w+);", x)
            if m:
                s.add(idx[m.group(1)])
                if not x.startswith("@"):
                    falls = False
            if x.startswith("ret") or x.startswith("exit") or x.startswith("trap"):
                falls = False
        if falls and i + 1 < len(bbs):
            s.add(i + 1)
        succ.append(s)
    pred = [set() for _ in bbs]
    for i, s in enumerate(succ):
        for j in s:
            pred[j].add(i)
    # Dominators (iterative) to find back edges.
    n = len(bbs)
    dom = [set(range(n)) for _ in range(n)]
    dom[0] = {0}
    changed = True
    while changed:
        changed = False
        for i in range(1, n):
            ps = [dom[p] for p in pred[i]]
            d = set.intersection(*ps) | {i} if ps else {i}
            if d != dom[i]:
                dom[i], changed = d, True
    best = None
    for t, s in enumerate(succ):
        for h in s:
            if h in dom[t]:
                body, work = {h, t}, ([t] if t != h else [])
                while work:
                    x = work.pop()
                    for p in pred[x]:
                        if p not in body:
                            body.add(p)
                            work.append(p)
                text = [x for b in body for x in bbs[b][1]]
                if any("mma_async" in x or "mma.sync" in x for x in text):
                    if best is None or len(body) > len(best):
                        best = body
    return best


def main():
    for path in sys.argv[1:]:
        for name, body in kernels(open(path).read()):
            bbs = blocks(body)
            loop = main_loop(bbs)
            if loop is None:
                print(f"{path} {name}: no loop with a gemm")
                continue
            insts = [x for b in sorted(loop) for x in bbs[b][1] if is_inst(x)]
            def count(p):
                return sum(1 for x in insts if re.match(p, x))
            print(f"{path} {name}: {len(insts)} instructions in the main loop "
                  f"({len(loop)} blocks): ex2 {count(r'ex2')}, fma {count(r'fma')}, "
                  f"max {count(r'max')}, shfl {count(r'shfl')}, cvt {count(r'cvt')}, "
                  f"mul {count(r'mul')}, setp {count(r'setp')}, selp {count(r'selp')}, "
                  f"wgmma {count(r'wgmma.mma_async')}")


if __name__ == "__main__":
    main()
