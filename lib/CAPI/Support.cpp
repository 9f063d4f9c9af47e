//===- Support.cpp - Errors and version of the C API ----------------------===//

#include "CAPIImpl.h"
#include "tile/Support/Version.h"

TileErrorKind tileErrorGetKind(TileErrorRef Error) {
  return Error ? Error->Kind : TILE_ERROR_INVALID_CALL;
}

const char *tileErrorGetMessage(TileErrorRef Error) {
  return Error ? Error->Message.c_str() : "";
}

void tileErrorDestroy(TileErrorRef Error) { delete Error; }

const char *tileGetVersion(void) {
  static const std::string Version = tile::getTileVersionString();
  return Version.c_str();
}
