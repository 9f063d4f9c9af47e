"""The launcher of a Kernel: a Python function made for its parameter list,
which writes every argument into one buffer the kernel owns and calls its
prepared launch (tileLaunchCall) with it.

The buffer holds a DLTensor (with its shape and strides arrays) for each
tensor parameter, then the TileArg array. For a torch tensor on the
executor's memory the launcher writes that DLTensor itself with one
precompiled struct.pack_into (see _torch.py); any other object goes
through its __dlpack__. Scalars are written by value. Nothing is checked
here that the entry point checks anyway (dtype, rank, shape, strides,
device, alignment): a tensor whose dtype the table lacks or whose rank
differs from the parameter's takes the __dlpack__ path, and the entry
point refuses what does not match, naming the argument.

The function is generated from the parameter kinds and ranks alone
(argument names become a0, a1, ...; nothing of the source enters it), so
that a launch runs straight-line code with no per-argument loop or lookup.
"""

import ctypes
import struct

from . import _capi
from ._capi import lib

# DLTensor: data, device (type, id), ndim, dtype (code, bits, lanes as
# one uint32), shape, strides, byte_offset; its shape and strides arrays
# follow it in the buffer.
_HEADER = "QiiiIQQQ"
_HEADER_SIZE = struct.calcsize("=" + _HEADER)
assert _HEADER_SIZE == 48
_ARG_SIZE = ctypes.sizeof(_capi.TileArg)
assert _ARG_SIZE == 16
_ARG_FORMAT = {_capi.ARG_TENSOR: "Qii", _capi.ARG_INT: "qii",
               _capi.ARG_FLOAT: "dii"}

# tileLaunchCall(TileLaunchRef, const TileArg *, size_t) -> TileErrorRef,
# without argtypes: the launcher passes c_void_p and c_size_t objects.
launch_call = lib._FuncPtr(("tileLaunchCall", lib))
launch_call.restype = ctypes.c_void_p


def build(params, launch, torch_info, executor_device, lock, dl, int_arg,
          float_arg, check):
    """The launcher for \\p params (objects with kind, rank, range) of the
    prepared launch \\p launch (a TileLaunchRef address): a function
    (self, *args, **kwargs) for a Kernel's __call__, which binds keyword
    or missing arguments with self._bind. \\p torch_info: a
    _torch.TorchInfo or None (no torch path); \\p executor_device: the
    executor's DLPack device type. \\p lock is held while the buffer is
    written and launched. \\p dl(value, index) returns the DLTensor
    address of \\p value and what keeps it alive; int_arg and
    float_arg(value, index) convert a scalar or raise; check raises the
    error of a TileErrorRef. Returns (function, buffer)."""
    n = len(params)
    offsets, size = [], 0
    for p in params:
        offsets.append(size)
        if p.kind == _capi.ARG_TENSOR:
            size += _HEADER_SIZE + 16 * p.rank
    args_offset = size
    size += _ARG_SIZE * n
    # uint64 words keep every field 8-byte aligned.
    buf = (ctypes.c_uint64 * max(size // 8, 1))()
    base = ctypes.addressof(buf)
    headers = [base + o for o in offsets]

    test = torch_info.device_test(executor_device) if torch_info else None
    env = {
        "buf": buf, "dl": dl, "int_arg": int_arg, "float_arg": float_arg,
        "check": check, "LOCK": lock, "N": n, "StructError": struct.error,
        # The call's arguments as ctypes objects, which ctypes passes
        # without converting (the function has no argtypes).
        "call": launch_call, "L": ctypes.c_void_p(launch),
        "ARGS": ctypes.c_void_p(base + args_offset), "NC": ctypes.c_size_t(n),
        "pargs": struct.Struct("=" + "".join(
            _ARG_FORMAT[p.kind] for p in params)).pack_into,
    }
    names = ["a%d" % i for i in range(n)]
    lines = ["def launch(self, *args, **kwargs):",
             "    if kwargs or len(args) != N:",
             "        args = self._bind(args, kwargs)",
             "    [%s] = args" % ", ".join(names),
             "    with LOCK:"]
    body = []
    if test:
        env["T"] = torch_info.tensor_type
        env["DT"] = torch_info.dtypes
        body += _direct(params, test, headers, env)
    body += _general(params, test, offsets, headers, args_offset, env)
    body += [
        "    err = call(L, ARGS, NC)",
        "    if err:",
        "        check(err)",
    ]
    lines += ["    " + line for line in body]
    exec(compile("\n".join(lines) + "\n", "<tile launcher>", "exec"), env)
    return env["launch"], buf


def _tensor_fields(i, p, test, header):
    """The statements that read torch tensor a<i> and the values its
    DLTensor (header, shape, strides) is packed from. Unpacking the shape
    raises ValueError for another rank; DT[...] KeyError for a dtype the
    table lacks."""
    prop, device_type = test
    a = "a%d" % i
    dims = ["h%d_%d" % (i, d) for d in range(p.rank)]
    strides = ["t%d_%d" % (i, d) for d in range(p.rank)]
    device_id = "%s.get_device()" % a if device_type != 1 else "0"
    reads = ["[%s] = %s.shape" % (", ".join(dims), a),
             "[%s] = %s.stride()" % (", ".join(strides), a)]
    values = ["%s.data_ptr()" % a, str(device_type), device_id, str(p.rank),
              "DT[%s.dtype]" % a, str(header + _HEADER_SIZE),
              str(header + _HEADER_SIZE + 8 * p.rank), "0"] + dims + strides
    return reads, values


def _direct(params, test, headers, env):
    """The branch for the common case: every tensor a torch tensor on the
    executor's memory, every scalar a Python int in range or a float. The
    whole buffer, DLTensors and TileArgs, is written by one pack_into."""
    prop = test[0]
    conds, reads, values, slots, fmt = [], [], [], [], "="
    for i, p in enumerate(params):
        a = "a%d" % i
        if p.kind == _capi.ARG_TENSOR:
            conds.append("%s.__class__ is T and %s.%s" % (a, a, prop))
            r, v = _tensor_fields(i, p, test, headers[i])
            reads += r
            values += v
            slots += [str(headers[i]), "0", "0"]
            fmt += _HEADER + "q" * (2 * p.rank)
        elif p.kind == _capi.ARG_INT:
            conds.append("%s.__class__ is int and %d <= %s <= %d" % (
                a, p.range[0], a, p.range[1]))
            slots += [a, str(p.kind), "0"]
        else:
            conds.append("%s.__class__ is float" % a)
            slots += [a, str(p.kind), "0"]
    for p in params:
        fmt += _ARG_FORMAT[p.kind]
    env["pall"] = struct.Struct(fmt).pack_into
    lines = ["    if %s:" % (" and ".join(conds) or "True"),
             "        try:"]
    lines += ["            " + r for r in reads]
    lines += ["            pall(buf, 0, %s)" % ", ".join(values + slots),
              "        except (KeyError, ValueError, RuntimeError, StructError):",
              "            pass",
              "        else:",
              "            err = call(L, ARGS, NC)",
              "            if err:",
              "                check(err)",
              "            return"]
    return lines


def _general(params, test, offsets, headers, args_offset, env):
    """Argument by argument: torch tensors read directly where they can
    be, any other tensor through __dlpack__, scalars converted (or refused
    by name)."""
    lines, slots = [], []
    for i, p in enumerate(params):
        a = "a%d" % i
        if p.kind == _capi.ARG_TENSOR:
            slots.append("s%d, %d, 0" % (i, p.kind))
            fallback = "s%d, k%d = dl(%s, %d)" % (i, i, a, i)
            if not test:
                lines.append("    " + fallback)
                continue
            reads, values = _tensor_fields(i, p, test, headers[i])
            env["p%d" % i] = struct.Struct(
                "=" + _HEADER + "q" * (2 * p.rank)).pack_into
            lines += ["    if %s.__class__ is T and %s.%s:" % (a, a, test[0]),
                      "        try:"]
            lines += ["            " + r for r in reads]
            lines += ["            p%d(buf, %d, %s)" % (i, offsets[i],
                                                       ", ".join(values)),
                      "            s%d = %d" % (i, headers[i]),
                      "        except (KeyError, ValueError, RuntimeError, "
                      "StructError):",
                      "            " + fallback,
                      "    else:",
                      "        " + fallback]
        elif p.kind == _capi.ARG_INT:
            lo, hi = p.range
            slots.append("%s, %d, 0" % (a, p.kind))
            lines += [
                "    if %s.__class__ is not int or not %d <= %s <= %d:" % (
                    a, lo, a, hi),
                "        %s = int_arg(%s, %d)" % (a, a, i)]
        else:
            slots.append("%s, %d, 0" % (a, p.kind))
            lines += ["    if %s.__class__ is not float:" % a,
                      "        %s = float_arg(%s, %d)" % (a, a, i)]
    lines.append("    pargs(buf, %d%s)" % (
        args_offset, "".join(", " + s for s in slots)))
    return lines
