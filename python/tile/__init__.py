"""Tile kernels from Python, on any object that exports ``__dlpack__``.

    import numpy as np, tile
    add = tile.compile("examples/elementwise_add.tile", target="cpu")
    a, b = np.random.rand(2, 1000).astype(np.float32)
    c = np.empty_like(a)
    add(a, b, c)          # c = a + b, written in place

The package is pure Python: ctypes over the C API (libTileCAPI, see
include/tile-c/Tile.h and docs/Embedding.md). Tensors are NumPy arrays on
the CPU targets and torch tensors (or any DLPack producer) on GPU targets;
scalars are Python numbers. Compiled kernels are kept for the process:
compiling the same source for the same target again returns the same
kernel.
"""

import ctypes
import numbers
import os
import sys
import threading
import weakref

from . import _capi, _launch, _torch
from ._capi import lib

__all__ = ["compile", "load", "Kernel", "TileError", "SourceError",
           "TargetError", "CompileError", "ExecutionError", "ArgumentError",
           "version"]


class TileError(Exception):
    """A failure reported by the C API; ``message`` is its text."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message


class SourceError(TileError, ValueError):
    """Malformed or invalid Tile source; the message is located
    (``file:line:col: error: ...`` with the line and a caret)."""


class TargetError(TileError, ValueError):
    """An unknown or invalid target, execution backend or entry name."""


class CompileError(TileError):
    """The pipeline or code generation failed."""


class ExecutionError(TileError, RuntimeError):
    """The execution backend is unavailable or failed, or a file could not
    be read or written."""


class ArgumentError(TileError, ValueError):
    """A launch refused: an argument does not match its parameter (dtype,
    rank, shape, strides, device, alignment). The message names it."""


_ERRORS = {
    _capi.ERROR_SOURCE: SourceError,
    _capi.ERROR_TARGET: TargetError,
    _capi.ERROR_COMPILE: CompileError,
    _capi.ERROR_IO: ExecutionError,
    _capi.ERROR_EXECUTION: ExecutionError,
    _capi.ERROR_ARGUMENT: ArgumentError,
}


def _check(err):
    if err:
        kind, message = _capi.take_error(err)
        raise _ERRORS.get(kind, TileError)(message)


def version():
    """Tile's version and commit, e.g. ``"0.1.0 (abc1234def56)"``."""
    return lib.tileGetVersion().decode()


_lock = threading.Lock()
_torch_info = None
_context = None
_executors = {}
_kernels = {}
_launchers = weakref.WeakSet()  # every Kernel, to rebuild their launchers


def _get_context():
    global _context
    if _context is None:
        ref = ctypes.c_void_p()
        _check(lib.tileContextCreate(ctypes.byref(ref)))
        _context = ref
    return _context


def _set_torch_info(info):
    """Launchers read torch tensors directly with \\p info (a
    _torch.TorchInfo; None: only through __dlpack__)."""
    global _torch_info
    _torch_info = info
    for kernel in list(_launchers):
        kernel._build_launcher()


def _notice_torch():
    """Turns the torch path on once torch is imported (unless
    TILE_PY_DLPACK_ONLY=1); True when it did."""
    if _torch_info is None and _torch.ENABLED:
        torch = sys.modules.get("torch")
        if torch is not None:
            _set_torch_info(_torch.TorchInfo(torch))
            return True
    return False


def _get_executor(name):
    ex = _executors.get(name)
    if ex is None:
        ref = ctypes.c_void_p()
        _check(lib.tileExecutorCreate(name.encode(), 0, ctypes.byref(ref)))
        ex = _executors[name] = ref
    return ex


# Integer dtypes: (lowest, highest) accepted for a Python int.
def _int_range(dtype):
    if dtype == "i1":
        return 0, 1
    bits = int(dtype[1:])
    if dtype[0] == "u":
        return 0, (1 << bits) - 1
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


class _Param:
    __slots__ = ("name", "kind", "dtype", "rank", "num_strides", "range")

    def __init__(self, name, kind, dtype, rank, num_strides):
        self.name, self.kind, self.dtype, self.rank = name, kind, dtype, rank
        self.num_strides = num_strides  # declared strides; 0: row-major
        self.range = _int_range(dtype) if kind == _capi.ARG_INT else None

    def describe(self):
        if self.kind == _capi.ARG_TENSOR:
            return "a %s tensor of rank %d" % (self.dtype, self.rank)
        return "a %s scalar" % self.dtype


class Kernel:
    """A compiled entry point, loaded on its execution backend.

    Call it with one argument per parameter, positionally or by name:
    objects exporting ``__dlpack__`` for tensors (on the executor's device,
    contiguous, of the declared dtype and rank), Python numbers for
    scalars. Outputs are written in place. On GPU backends the launch is
    asynchronous on the default stream, like a PyTorch operation; call
    ``synchronize()`` (or torch.cuda.synchronize()) before timing it.
    """

    def __init__(self, artifact, entry_index, executor_name):
        self._artifact = artifact  # owned: a TileArtifactRef
        self.name = lib.tileArtifactGetEntryName(artifact, entry_index).decode()
        self.target = lib.tileArtifactGetTarget(artifact).decode()
        self.exec_backend = executor_name
        n = lib.tileArtifactGetNumParams(artifact, entry_index)
        self.params = [
            _Param(lib.tileArtifactGetParamName(artifact, entry_index, i).decode(),
                   lib.tileArtifactGetParamKind(artifact, entry_index, i),
                   lib.tileArtifactGetParamDType(artifact, entry_index, i).decode(),
                   lib.tileArtifactGetParamRank(artifact, entry_index, i),
                   lib.tileArtifactGetParamNumStrides(artifact, entry_index, i))
            for i in range(n)]
        self._index = {p.name: i for i, p in enumerate(self.params)}
        self._executor = _get_executor(executor_name)
        self._device = lib.tileExecutorGetDeviceType(self._executor)
        program = ctypes.c_void_p()
        _check(lib.tileProgramLoad(self._executor, artifact,
                                   ctypes.byref(program)))
        self._program = program
        launch = ctypes.c_void_p()
        _check(lib.tileProgramPrepareLaunch(program, self.name.encode(),
                                            ctypes.byref(launch)))
        self._launch = launch
        self._nargs = n
        self._call_lock = threading.Lock()
        self._build_launcher()
        _launchers.add(self)
        _notice_torch()

    def _build_launcher(self):
        self._run, self._buf = _launch.build(self, _torch_info)
        # Calls go straight to the launcher: a class of this kernel's own
        # whose __call__ it is (Python looks __call__ up on the type), as a
        # staticmethod, so that Python passes the caller's arguments on
        # without putting the instance in front.
        self.__class__ = type("Kernel", (Kernel,), {
            "__call__": staticmethod(self._run),
            "__module__": Kernel.__module__, "__doc__": Kernel.__doc__})

    def __repr__(self):
        sig = ", ".join("%s: %s" % (p.name, p.dtype) for p in self.params)
        return "<tile.Kernel @%s(%s) for '%s' on %s>" % (
            self.name, sig, self.target, self.exec_backend)

    def _rebind(self, args, kwargs):
        """The launcher's path for keyword, missing or extra arguments:
        \\p args are the positional ones (the launcher's placeholder for
        those not given at the end), bound with \\p kwargs by name and
        launched again, or refused."""
        args = [a for a in args if a is not _launch.MISSING]
        return self._run(*self._bind(args, kwargs))

    def _bind(self, args, kwargs):
        if len(args) > self._nargs:
            raise TypeError("@%s takes %d arguments (%s), got %d" % (
                self.name, self._nargs,
                ", ".join(p.name for p in self.params), len(args)))
        bound = list(args) + [None] * (self._nargs - len(args))
        given = [True] * len(args) + [False] * (self._nargs - len(args))
        for key, value in kwargs.items():
            i = self._index.get(key)
            if i is None:
                raise TypeError("@%s has no parameter '%s'; its parameters "
                                "are: %s" % (self.name, key, ", ".join(
                                    p.name for p in self.params)))
            if given[i]:
                raise TypeError("argument '%s' of @%s is given twice" %
                                (key, self.name))
            bound[i], given[i] = value, True
        for i, ok in enumerate(given):
            if not ok:
                p = self.params[i]
                raise TypeError("missing argument '%s' (#%d) of @%s: %s" %
                                (p.name, i, self.name, p.describe()))
        return bound

    def __call__(self, *args, **kwargs):
        """Launches the kernel; each Kernel's own class replaces this with
        its launcher (see _build_launcher)."""
        raise NotImplementedError

    def _dl(self, value, i):
        """The launcher's path for tensor argument \\p i when it is not a
        torch tensor it reads itself: (DLTensor address, capsule)."""
        _notice_torch()  # from the next launch on, torch tensors directly
        return _dltensor(value, self.params[i], i)

    def _int_arg(self, value, i):
        return _int_arg(value, self.params[i], i)

    def _float_arg(self, value, i):
        return _float_arg(value, self.params[i], i)

    def synchronize(self):
        """Waits for every launch on this kernel's execution backend."""
        _check(lib.tileExecutorSynchronize(self._executor))

    def save(self, path):
        """Writes the compiled artifact to \\p path (``tile.load`` or a
        program linking libTileExec reads it back)."""
        _check(lib.tileArtifactWriteToFile(self._artifact, os.fsencode(path)))


def _float_arg(value, p, i):
    # numbers.Real also holds NumPy's floats and ints.
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    raise TypeError("argument '%s' (#%d): expected a Python number for %s, "
                    "got %s" % (p.name, i, p.describe(), type(value).__name__))


def _int_arg(value, p, i):
    if isinstance(value, numbers.Integral):
        value = int(value)
        lo, hi = p.range
        if lo <= value <= hi:
            return value
        raise ValueError("argument '%s' (#%d): %d is out of range for %s "
                         "([%d, %d])" % (p.name, i, value, p.describe(), lo, hi))
    raise TypeError("argument '%s' (#%d): expected a Python int for %s, got %s"
                    % (p.name, i, p.describe(), type(value).__name__))


def _dltensor(value, p, i):
    """The DLTensor pointer of \\p value, through its __dlpack__, and the
    capsule that keeps it alive."""
    export = getattr(value, "__dlpack__", None)
    if export is None:
        raise TypeError("argument '%s' (#%d): expected %s exporting "
                        "__dlpack__ (a NumPy array, a torch tensor), got %s" %
                        (p.name, i, p.describe(), type(value).__name__))
    try:
        # No stream: the consumer's work goes on the legacy default stream,
        # which is where the execution backends launch.
        capsule = export()
    except Exception as e:  # the producer refused (read-only, grad, ...)
        raise TypeError("argument '%s' (#%d): cannot be passed through DLPack:"
                        " %s" % (p.name, i, e)) from e
    # DLManagedTensor starts with its DLTensor.
    return _capi.capsule_get_pointer(capsule, b"dltensor"), capsule


def _read_source(path_or_source):
    if isinstance(path_or_source, os.PathLike) or (
            isinstance(path_or_source, str) and "\n" not in path_or_source
            and "{" not in path_or_source):
        path = os.fspath(path_or_source)
        try:
            with open(path, encoding="utf-8") as f:
                return f.read(), path
        except OSError as e:
            raise ExecutionError("cannot read '%s': %s" % (path, e.strerror))
    if not isinstance(path_or_source, str):
        raise TypeError("tile.compile takes a path or Tile source text, got %s"
                        % type(path_or_source).__name__)
    return path_or_source, "<string>"


def compile(path_or_source, target="cpu", entry=None, exec_backend=None):
    """Compiles function ``entry`` (optional when there is one) of a .tile
    file or of Tile source text for ``target`` ("cpu", "cuda -arch=sm_90a",
    ...) and loads it on the target's execution backend (``exec_backend``:
    None for the first compatible one). Returns a Kernel; the same source,
    target, entry and backend give the same Kernel for the life of the
    process."""
    text, name = _read_source(path_or_source)
    key = (text, target, entry, exec_backend)
    with _lock:
        kernel = _kernels.get(key)
        if kernel is not None:
            return kernel
        ctx = _get_context()
        module = ctypes.c_void_p()
        data = text.encode("utf-8")
        _check(lib.tileModuleParseString(ctx, data, len(data), name.encode(),
                                         ctypes.byref(module)))
        try:
            if entry is None:
                n = lib.tileModuleGetNumFunctions(module)
                names = [lib.tileModuleGetFunctionName(module, i).decode()
                         for i in range(n)]
                if len(names) != 1:
                    raise TargetError(
                        "'%s' has %s; choose one with entry=NAME" %
                        (name, "no function" if not names else
                         "several functions (@%s)" % ", @".join(names)))
                fn = names[0]
            else:
                fn = entry
            tgt = ctypes.c_void_p()
            _check(lib.tileTargetResolve(
                ctx, target.encode(),
                exec_backend.encode() if exec_backend else None,
                ctypes.byref(tgt)))
            try:
                artifact = ctypes.c_void_p()
                _check(lib.tileCompile(module, tgt, fn.encode(),
                                       ctypes.byref(artifact)))
                backend = lib.tileTargetGetExecBackend(tgt).decode()
            finally:
                lib.tileTargetDestroy(tgt)
        finally:
            lib.tileModuleDestroy(module)
        try:
            kernel = Kernel(artifact, 0, backend)
        except BaseException:
            lib.tileArtifactDestroy(artifact)
            raise
        _kernels[key] = kernel
        return kernel


def load(path, entry=None):
    """Loads an artifact file (``tile-llc -emit=artifact``, Kernel.save) and
    returns the Kernel of ``entry`` (optional when it has one)."""
    artifact = ctypes.c_void_p()
    _check(lib.tileArtifactReadFromFile(os.fsencode(path),
                                        ctypes.byref(artifact)))
    try:
        n = lib.tileArtifactGetNumEntries(artifact)
        names = [lib.tileArtifactGetEntryName(artifact, i).decode()
                 for i in range(n)]
        if entry is None and len(names) != 1:
            raise TargetError("'%s' has %d entry points (%s); choose one with "
                              "entry=NAME" % (path, n, ", ".join(names)))
        if entry is not None and entry not in names:
            raise TargetError("no entry point '%s' in '%s'; it has: %s" %
                              (entry, path, ", ".join(names) or "none"))
        index = 0 if entry is None else names.index(entry)
        backend = lib.tileArtifactGetExecBackend(artifact).decode()
        with _lock:
            return Kernel(artifact, index, backend)
    except BaseException:
        lib.tileArtifactDestroy(artifact)
        raise
