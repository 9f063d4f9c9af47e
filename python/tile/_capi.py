"""ctypes bindings of libTileCAPI (include/tile-c/Tile.h).

The library is found, in order, at $TILE_CAPI_LIBRARY, next to this package
(a copied bundle build), and in the lib/ directory of the prefix the
package is installed in (<prefix>/lib/python3/site-packages/tile).
"""

import ctypes
import os
from pathlib import Path

# enum TileArgKind and enum TileErrorKind.
ARG_TENSOR, ARG_INT, ARG_FLOAT = 0, 1, 2
ERROR_SOURCE = 1
ERROR_TARGET = 2
ERROR_COMPILE = 3
ERROR_IO = 4
ERROR_EXECUTION = 5
ERROR_ARGUMENT = 6
ERROR_INVALID_CALL = 7

LIBRARY_NAME = "libTileCAPI.so"


class _TileArgValue(ctypes.Union):
    _fields_ = [("i64", ctypes.c_int64), ("f64", ctypes.c_double),
                ("tensor", ctypes.c_void_p)]


class TileArg(ctypes.Structure):
    _fields_ = [("value", _TileArgValue), ("kind", ctypes.c_int32),
                ("reserved", ctypes.c_int32)]


def _candidates():
    env = os.environ.get("TILE_CAPI_LIBRARY")
    if env:
        return [Path(env)]
    here = Path(__file__).resolve().parent
    paths = [here / LIBRARY_NAME]
    if len(here.parents) > 2:  # <prefix>/lib/python3/site-packages/tile
        paths.append(here.parents[2] / LIBRARY_NAME)
    return paths


def _load():
    tried = []
    for path in _candidates():
        if path.is_file():
            return ctypes.CDLL(str(path))
        tried.append(str(path))
    raise ImportError("tile: cannot find %s (looked at %s); set "
                      "TILE_CAPI_LIBRARY to its path" %
                      (LIBRARY_NAME, ", ".join(tried)))


lib = _load()

_P = ctypes.c_void_p
_S = ctypes.c_char_p
_Z = ctypes.c_size_t
_PP = ctypes.POINTER(ctypes.c_void_p)

# name: (restype, argtypes)
_PROTOTYPES = {
    "tileErrorGetKind": (ctypes.c_int, [_P]),
    "tileErrorGetMessage": (_S, [_P]),
    "tileErrorDestroy": (None, [_P]),
    "tileGetVersion": (_S, []),
    "tileContextCreate": (_P, [_PP]),
    "tileContextDestroy": (None, [_P]),
    "tileModuleParseString": (_P, [_P, _S, _Z, _S, _PP]),
    "tileModuleParseFile": (_P, [_P, _S, _PP]),
    "tileModuleDestroy": (None, [_P]),
    "tileModuleGetNumFunctions": (_Z, [_P]),
    "tileModuleGetFunctionName": (_S, [_P, _Z]),
    "tileTargetResolve": (_P, [_P, _S, _S, _PP]),
    "tileTargetDestroy": (None, [_P]),
    "tileTargetGetName": (_S, [_P]),
    "tileTargetGetExecBackend": (_S, [_P]),
    "tileCompile": (_P, [_P, _P, _S, _PP]),
    "tileArtifactReadFromFile": (_P, [_S, _PP]),
    "tileArtifactReadFromMemory": (_P, [_P, _Z, _PP]),
    "tileArtifactWriteToFile": (_P, [_P, _S]),
    "tileArtifactGetData": (None, [_P, _PP, ctypes.POINTER(_Z)]),
    "tileArtifactDestroy": (None, [_P]),
    "tileArtifactGetTarget": (_S, [_P]),
    "tileArtifactGetExecBackend": (_S, [_P]),
    "tileArtifactGetNumEntries": (_Z, [_P]),
    "tileArtifactGetEntryName": (_S, [_P, _Z]),
    "tileArtifactGetNumParams": (ctypes.c_int64, [_P, _Z]),
    "tileArtifactGetParamName": (_S, [_P, _Z, _Z]),
    "tileArtifactGetParamKind": (ctypes.c_int32, [_P, _Z, _Z]),
    "tileArtifactGetParamDType": (_S, [_P, _Z, _Z]),
    "tileArtifactGetParamRank": (ctypes.c_int64, [_P, _Z, _Z]),
    "tileArtifactGetParamNumStrides": (ctypes.c_int64, [_P, _Z, _Z]),
    "tileExecutorCreate": (_P, [_S, ctypes.c_uint, _PP]),
    "tileExecutorDestroy": (None, [_P]),
    "tileExecutorGetDeviceType": (ctypes.c_int32, [_P]),
    "tileExecutorSynchronize": (_P, [_P]),
    "tileProgramLoad": (_P, [_P, _P, _PP]),
    "tileProgramDestroy": (None, [_P]),
    "tileProgramLaunch": (_P, [_P, _S, ctypes.POINTER(TileArg), _Z]),
    "tileProgramPrepareLaunch": (_P, [_P, _S, _PP]),
    "tileLaunchDestroy": (None, [_P]),
    # Arguments by address: the launcher passes its buffer's.
    "tileLaunchCall": (_P, [_P, _P, _Z]),
    "tileLaunchCallPacked": (_P, [_P]),
}

for _name, (_res, _args) in _PROTOTYPES.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args

# PyCapsule_GetPointer for DLPack capsules ("dltensor").
capsule_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
capsule_get_pointer.restype = ctypes.c_void_p
capsule_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def take_error(err):
    """The (kind, message) of a TileErrorRef, which is released."""
    kind = lib.tileErrorGetKind(err)
    message = lib.tileErrorGetMessage(err).decode("utf-8", "replace")
    lib.tileErrorDestroy(err)
    return kind, message
