"""The launcher of a Kernel: a Python function made for its parameter list,
which writes every argument into one buffer the kernel owns and calls its
prepared launch with it (tileLaunchCallPacked: tileLaunchCall with its
arguments in the buffer too).

The buffer holds a DLTensor (with its shape array) for each tensor
parameter, two TileArg arrays (one for each path below) and the strides
arrays. Where every tensor is a torch tensor on the executor's memory and
every scalar a plain Python number (the direct path), the launcher reads
the tensors' fields itself and writes what changes between calls with as
few struct.pack_into calls as it can; any other argument takes the
general path, argument by argument, through __dlpack__ where it must.
Nothing is checked here that the entry point checks anyway (dtype, rank,
shape, strides, device, alignment): a tensor whose dtype the table lacks,
whose rank differs from the parameter's or that is not contiguous takes
the general path, and the entry point refuses what does not match,
naming the argument.

What the direct path writes, and why (measured: docs/Performance.md):
- Only what varies. The TileArgs of tensors (the address of their
  DLTensor) are written once, when the launcher is made; of a DLTensor,
  byte_offset (0) and, for a contiguous tensor of a parameter that
  declares no strides, strides (NULL: row-major) are pad bytes of the
  format, which pack_into zero-fills without an argument. Such a tensor
  is asked is_contiguous() instead of stride().
- In calls of at most MAX_PACK_VALUES values: a CPython call with about
  30 arguments or more costs several times one with 24 (seen with
  CPython 3.11 and 3.12).

The function is generated from the parameter kinds, ranks and declared
strides alone (arguments are a0, a1, ...; nothing of the source enters
it), so that a launch runs straight-line code with no per-argument loop
or lookup. It is the __call__ of the kernel's own class as a
staticmethod: Python then calls it with the caller's arguments as they
are, without the instance in front.
"""

import ctypes
import struct

from . import _capi
from ._capi import lib

# DLTensor: data, device (type, id), ndim, dtype (code, bits, lanes as
# one uint32), shape, strides, byte_offset.
_HEADER_SIZE = 48
_ARG_SIZE = ctypes.sizeof(_capi.TileArg)
assert _ARG_SIZE == 16
_ARG_FORMAT = {_capi.ARG_TENSOR: "Qii", _capi.ARG_INT: "qii",
               _capi.ARG_FLOAT: "dii"}
# The direct path's pack_into calls take at most this many values each.
MAX_PACK_VALUES = 24
# Contiguous tensors of parameters without declared strides are written
# with NULL strides (bench/gpu compares with this off).
NULL_STRIDES = True

# tileLaunchCallPacked(const TileLaunchCallArgs *) -> TileErrorRef, without
# argtypes: the launcher passes a c_void_p object, the address of the
# launch, TileArgs and count it keeps in its buffer (ctypes takes about
# 0.12 us for each argument it passes: one instead of three).
launch_call = lib._FuncPtr(("tileLaunchCallPacked", lib))
launch_call.restype = ctypes.c_void_p
# TileLaunchCallArgs: launch, args, num_args.
_CALL = struct.Struct("=QQQ")

# Stands for an argument not given (positional parameters, defaulted).
MISSING = object()


class _Packer:
    """Consecutive fields of the buffer, from offset \\p start, written by
    pack_into calls of at most MAX_PACK_VALUES values each."""

    def __init__(self, start):
        self.start = start
        self.items = []  # (format, size, values)

    def add(self, fmt, values):
        self.items.append((fmt, struct.calcsize("=" + fmt), values))

    def statements(self, env, name):
        """The pack_into statements (their functions go into \\p env as
        <name>0, <name>1, ...)."""
        chunks, cur, count = [], [], 0
        for item in self.items:
            if cur and count + len(item[2]) > MAX_PACK_VALUES:
                chunks.append(cur)
                cur, count = [], 0
            cur.append(item)
            count += len(item[2])
        if cur:
            chunks.append(cur)
        lines, offset = [], self.start
        for k, chunk in enumerate(chunks):
            fn = "%s%d" % (name, k)
            env[fn] = struct.Struct(
                "=" + "".join(fmt for fmt, _, _ in chunk)).pack_into
            values = [v for _, _, vs in chunk for v in vs]
            lines.append("%s(buf, %d%s)" % (fn, offset,
                                            "".join(", " + v for v in values)))
            offset += sum(size for _, size, _ in chunk)
        return lines


class _Layout:
    """Where each part of the buffer is, for \\p params."""

    def __init__(self, params):
        n = len(params)
        # The TileLaunchCallArgs of each path.
        self.direct_call = 0
        self.general_call = _CALL.size
        # The direct path's TileArgs come right before the DLTensors, so
        # that its scalars and the DLTensors are one run of the buffer.
        self.general_args = 2 * _CALL.size
        self.direct_args = self.general_args + _ARG_SIZE * n
        offset = self.direct_args + _ARG_SIZE * n
        self.headers, self.strides = {}, {}
        for i, p in enumerate(params):
            if p.kind == _capi.ARG_TENSOR:
                self.headers[i] = offset  # the DLTensor, then its shape
                offset += _HEADER_SIZE + 8 * p.rank
        for i, p in enumerate(params):
            if p.kind == _capi.ARG_TENSOR:
                self.strides[i] = offset
                offset += 8 * p.rank
        self.size = offset


def build(kernel, torch_info):
    """The launcher of \\p kernel (a tile.Kernel: its params, _launch,
    _device, _call_lock, _dl, _int_arg, _float_arg and _rebind) and its
    buffer. \\p torch_info: a _torch.TorchInfo, or None for no direct
    path. Returns (function, buffer)."""
    params = kernel.params
    n = len(params)
    layout = _Layout(params)
    # uint64 words keep every field 8-byte aligned.
    buf = (ctypes.c_uint64 * max(layout.size // 8, 1))()
    base = ctypes.addressof(buf)
    from . import _check
    env = {
        "buf": buf, "dl": kernel._dl, "int_arg": kernel._int_arg,
        "float_arg": kernel._float_arg, "check": _check,
        "rebind": kernel._rebind, "M": MISSING,
        "acquire": kernel._call_lock.acquire,
        "release": kernel._call_lock.release,
        "StructError": struct.error,
        # The call's argument, a ctypes object, which ctypes passes
        # without converting (the function has no argtypes).
        "call": launch_call,
        "PD": ctypes.c_void_p(base + layout.direct_call),
        "PG": ctypes.c_void_p(base + layout.general_call),
    }
    for offset, args in [(layout.direct_call, layout.direct_args),
                         (layout.general_call, layout.general_args)]:
        _CALL.pack_into(buf, offset, kernel._launch.value, base + args, n)
    # The direct path's TileArgs of tensors never change.
    for i in layout.headers:
        _capi.TileArg.from_buffer(buf, layout.direct_args + _ARG_SIZE * i) \
            .value.tensor = base + layout.headers[i]
    for i, p in enumerate(params):
        if p.kind != _capi.ARG_TENSOR:
            _capi.TileArg.from_buffer(
                buf, layout.direct_args + _ARG_SIZE * i).kind = p.kind

    names = ["a%d" % i for i in range(n)]
    last = names[-1] if names else None
    lines = ["def launch(%s):" % ", ".join(
        ["%s=M" % a for a in names] + (["/"] if names else []) +
        ["*rest", "**kw"])]
    # Keywords, a missing or an extra argument: bound by name (or refused)
    # and called again.
    lines.append("    if rest or kw%s:" % (
        " or %s is M" % last if last else ""))
    lines.append("        return rebind((%s) + rest, kw)" % "".join(
        "%s, " % a for a in names) if names else
        "        return rebind(rest, kw)")
    lines += ["    acquire()",
              "    try:"]
    test = torch_info.device_test(kernel._device) if torch_info else None
    body = []
    if test:
        env["T"] = torch_info.tensor_type
        env["DT"] = torch_info.dtypes
        body += _direct(params, test, layout, base, env)
    body += _general(params, test, layout, base, env)
    lines += ["        " + line for line in body]
    lines += ["    finally:",
              "        release()"]
    source = "\n".join(lines) + "\n"
    exec(compile(source, "<tile launcher>", "exec"), env)
    launch = env["launch"]
    launch.source = source  # for a reader (and the tests)
    return launch, buf


def _direct(params, test, layout, base, env):
    """The branch for the common case: every tensor a torch tensor on the
    executor's memory, every scalar a Python int in range or a float."""
    prop, device_type = test
    conds, reads, contiguous = [], [], []
    first_scalar = min((i for i, p in enumerate(params)
                        if p.kind != _capi.ARG_TENSOR), default=None)
    packer = _Packer(layout.direct_args + _ARG_SIZE * first_scalar
                     if first_scalar is not None else
                     min(layout.headers.values(), default=0))
    strided = []  # (index, pack statement values) of tensors with strides
    if first_scalar is not None:
        for i in range(first_scalar, len(params)):
            p, a = params[i], "a%d" % i
            if p.kind == _capi.ARG_TENSOR:
                packer.add("Q8x", [str(base + layout.headers[i])])
            else:
                packer.add(_ARG_FORMAT[p.kind][0] + "i4x", [a, str(p.kind)])
    for i, p in enumerate(params):
        a = "a%d" % i
        if p.kind == _capi.ARG_INT:
            conds.append("%s.__class__ is int and %d <= %s <= %d" % (
                a, p.range[0], a, p.range[1]))
            continue
        if p.kind == _capi.ARG_FLOAT:
            conds.append("%s.__class__ is float" % a)
            continue
        conds.append("%s.__class__ is T and %s.%s" % (a, a, prop))
        dims = ["h%d_%d" % (i, d) for d in range(p.rank)]
        reads.append("[%s] = %s.shape" % (", ".join(dims), a))
        device_id = "%s.get_device()" % a if device_type != 1 else "0"
        header = layout.headers[i]
        values = ["%s.data_ptr()" % a, str(device_type), device_id,
                  str(p.rank), "DT[%s.dtype]" % a, str(base + header + 48)]
        if NULL_STRIDES and not p.num_strides:
            contiguous.append("%s.is_contiguous()" % a)
            packer.add("QiiiIQ16x" + "q" * p.rank, values + dims)
        else:
            strides = ["t%d_%d" % (i, d) for d in range(p.rank)]
            if p.rank:
                reads.append("[%s] = %s.stride()" % (", ".join(strides), a))
            packer.add("QiiiIQQ8x" + "q" * p.rank, values + [
                str(base + layout.strides[i])] + dims)
            strided.append((i, strides))
    # The headers are consecutive, each right after the last one's shape:
    # the packer's fields are one run of the buffer.
    packs = packer.statements(env, "pd")
    for i, strides in strided:
        if params[i].rank:
            sp = _Packer(layout.strides[i])
            sp.add("q" * params[i].rank, strides)
            packs += sp.statements(env, "ps%d_" % i)
    lines = ["if %s:" % (" and ".join(conds) or "True"),
             "    try:"]
    lines += ["        " + r for r in reads]
    if contiguous:
        # Not contiguous: the general path gives its strides.
        lines += ["        if not (%s):" % " and ".join(contiguous),
                  "            raise ValueError"]
    lines += ["        " + s for s in packs]
    if not reads and not packs:
        lines.append("        pass")  # no parameters
    lines += ["    except (KeyError, ValueError, RuntimeError, StructError):",
              "        pass",
              "    else:",
              "        err = call(PD)",
              "        if err:",
              "            check(err)",
              "        return"]
    return lines


def _general(params, test, layout, base, env):
    """Argument by argument: torch tensors read directly where they can
    be (with their strides), any other tensor through __dlpack__, scalars
    converted (or refused by name)."""
    lines, slots = [], []
    for i, p in enumerate(params):
        a = "a%d" % i
        if p.kind == _capi.ARG_TENSOR:
            slots.append("s%d, %d, 0" % (i, p.kind))
            fallback = "s%d, k%d = dl(%s, %d)" % (i, i, a, i)
            if not test:
                lines.append(fallback)
                continue
            prop, device_type = test
            header = layout.headers[i]
            dims = ["h%d_%d" % (i, d) for d in range(p.rank)]
            strides = ["t%d_%d" % (i, d) for d in range(p.rank)]
            device_id = "%s.get_device()" % a if device_type != 1 else "0"
            reads = ["[%s] = %s.shape" % (", ".join(dims), a),
                     "[%s] = %s.stride()" % (", ".join(strides), a)]
            values = ["%s.data_ptr()" % a, str(device_type), device_id,
                      str(p.rank), "DT[%s.dtype]" % a,
                      str(base + header + 48),
                      str(base + layout.strides[i])] + dims
            pk = _Packer(header)
            pk.add("QiiiIQQ8x" + "q" * p.rank, values)
            packs = pk.statements(env, "pg%d_" % i)
            if p.rank:
                sp = _Packer(layout.strides[i])
                sp.add("q" * p.rank, strides)
                packs += sp.statements(env, "pgs%d_" % i)
            lines += ["if %s.__class__ is T and %s.%s:" % (a, a, prop),
                      "    try:"]
            lines += ["        " + r for r in reads]
            lines += ["        " + s for s in packs]
            lines += ["        s%d = %d" % (i, base + header),
                      "    except (KeyError, ValueError, RuntimeError, "
                      "StructError):",
                      "        " + fallback,
                      "else:",
                      "    " + fallback]
        elif p.kind == _capi.ARG_INT:
            lo, hi = p.range
            slots.append("%s, %d, 0" % (a, p.kind))
            lines += [
                "if %s.__class__ is not int or not %d <= %s <= %d:" % (
                    a, lo, a, hi),
                "    %s = int_arg(%s, %d)" % (a, a, i)]
        else:
            slots.append("%s, %d, 0" % (a, p.kind))
            lines += ["if %s.__class__ is not float:" % a,
                      "    %s = float_arg(%s, %d)" % (a, a, i)]
    args = _Packer(layout.general_args)
    for p, slot in zip(params, slots):
        args.add(_ARG_FORMAT[p.kind], slot.split(", "))
    lines += args.statements(env, "pargs")
    lines += ["err = call(PG)",
              "if err:",
              "    check(err)"]
    return lines
