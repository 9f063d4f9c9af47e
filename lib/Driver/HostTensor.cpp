//===- HostTensor.cpp - Typed host arrays for tools -----------------------===//

#include "tile/Driver/HostTensor.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <cstring>
#include <limits>

using namespace tile;

static const llvm::fltSemantics &fp8Semantics(DType T) {
  return T == DType::F8E4M3 ? llvm::APFloat::Float8E4M3FN()
                            : llvm::APFloat::Float8E5M2();
}

HostTensor::HostTensor(DType Ty, std::vector<int64_t> Shape)
    : Ty(Ty), Shape(std::move(Shape)) {
  Data.assign(size_t(getNumElements()) * getDTypeBytes(Ty), 0);
}

int64_t HostTensor::getNumElements() const {
  int64_t N = 1;
  for (int64_t D : Shape)
    N *= D;
  return N;
}

template <typename T> static T loadAs(const uint8_t *P) {
  T V;
  std::memcpy(&V, P, sizeof(T));
  return V;
}
template <typename T> static void storeAs(uint8_t *P, T V) {
  std::memcpy(P, &V, sizeof(T));
}

double HostTensor::get(int64_t I) const {
  const uint8_t *P = Data.data() + I * getDTypeBytes(Ty);
  switch (Ty) {
  case DType::I1: return *P != 0;
  case DType::I8: return loadAs<int8_t>(P);
  case DType::I16: return loadAs<int16_t>(P);
  case DType::I32: return loadAs<int32_t>(P);
  case DType::I64: return double(loadAs<int64_t>(P));
  case DType::U8: return *P;
  case DType::U16: return loadAs<uint16_t>(P);
  case DType::U32: return loadAs<uint32_t>(P);
  case DType::U64: return double(loadAs<uint64_t>(P));
  case DType::F16: return halfToFloat(loadAs<uint16_t>(P));
  case DType::BF16: return bfloatToFloat(loadAs<uint16_t>(P));
  case DType::F32: return loadAs<float>(P);
  case DType::F64: return loadAs<double>(P);
  case DType::F8E4M3:
  case DType::F8E5M2: {
    llvm::APFloat A(fp8Semantics(Ty), llvm::APInt(8, *P));
    bool Lost;
    A.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
              &Lost);
    return A.convertToDouble();
  }
  }
  return 0;
}

/// Truncates toward zero and wraps to \p Bits bits.
static uint64_t toInt(double V, unsigned Bits) {
  if (std::isnan(V))
    return 0;
  double T = std::trunc(V);
  if (T >= 9.2e18 || T <= -9.2e18)
    return uint64_t(int64_t(T < 0 ? std::numeric_limits<int64_t>::min()
                                  : std::numeric_limits<int64_t>::max()));
  uint64_t U = uint64_t(int64_t(T));
  return Bits >= 64 ? U : U & ((uint64_t(1) << Bits) - 1);
}

void HostTensor::set(int64_t I, double V) {
  uint8_t *P = Data.data() + I * getDTypeBytes(Ty);
  switch (Ty) {
  case DType::I1: *P = V != 0; return;
  case DType::I8:
  case DType::U8: *P = uint8_t(toInt(V, 8)); return;
  case DType::I16:
  case DType::U16: storeAs<uint16_t>(P, uint16_t(toInt(V, 16))); return;
  case DType::I32:
  case DType::U32: storeAs<uint32_t>(P, uint32_t(toInt(V, 32))); return;
  case DType::I64:
  case DType::U64: storeAs<uint64_t>(P, toInt(V, 64)); return;
  case DType::F16: storeAs<uint16_t>(P, floatToHalf(float(V))); return;
  case DType::BF16: storeAs<uint16_t>(P, floatToBFloat(float(V))); return;
  case DType::F32: storeAs<float>(P, float(V)); return;
  case DType::F64: storeAs<double>(P, V); return;
  case DType::F8E4M3:
  case DType::F8E5M2: {
    llvm::APFloat A(V);
    bool Lost;
    A.convert(fp8Semantics(Ty), llvm::APFloat::rmNearestTiesToEven, &Lost);
    *P = uint8_t(A.bitcastToAPInt().getZExtValue());
    return;
  }
  }
}

void HostTensor::fillRandom(std::mt19937_64 &Rng) {
  int64_t N = getNumElements();
  if (isFloat(Ty)) {
    std::uniform_real_distribution<double> D(-1.0, 1.0);
    if (Ty == DType::F32) {
      float *P = reinterpret_cast<float *>(Data.data());
      for (int64_t I = 0; I != N; ++I)
        P[I] = float(D(Rng));
      return;
    }
    for (int64_t I = 0; I != N; ++I)
      set(I, D(Rng));
    return;
  }
  std::uniform_int_distribution<int> D(isBool(Ty) ? 0 : isUnsigned(Ty) ? 0 : -8,
                                       isBool(Ty) ? 1 : isUnsigned(Ty) ? 15 : 7);
  for (int64_t I = 0; I != N; ++I)
    set(I, D(Rng));
}

void HostTensor::poison() {
  if (!isFloat(Ty)) {
    std::memset(Data.data(), 0x5a, Data.size());
    return;
  }
  double NaN = std::numeric_limits<double>::quiet_NaN();
  for (int64_t I = 0, N = getNumElements(); I != N; ++I)
    set(I, NaN);
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

static std::string npyDescr(DType T) {
  switch (T) {
  case DType::I1: return "|b1";
  case DType::I8: return "|i1";
  case DType::I16: return "<i2";
  case DType::I32: return "<i4";
  case DType::I64: return "<i8";
  case DType::U8:
  case DType::F8E4M3:
  case DType::F8E5M2: return "|u1";
  case DType::U16:
  case DType::BF16: return "<u2";
  case DType::U32: return "<u4";
  case DType::U64: return "<u8";
  case DType::F16: return "<f2";
  case DType::F32: return "<f4";
  case DType::F64: return "<f8";
  }
  return "?";
}

llvm::Error tile::writeNpy(llvm::StringRef Path, const HostTensor &T) {
  std::string Shape = "(";
  const std::vector<int64_t> &Dims = T.getShape();
  for (size_t I = 0; I != Dims.size(); ++I) {
    Shape += std::to_string(Dims[I]);
    if (Dims.size() == 1)
      Shape += ",";
    else if (I + 1 != Dims.size())
      Shape += ", ";
  }
  Shape += ")";
  std::string Header = "{'descr': '" + npyDescr(T.getDType()) +
                       "', 'fortran_order': False, 'shape': " + Shape + ", }";
  size_t Total = 10 + Header.size() + 1;
  Header.append((64 - Total % 64) % 64, ' ');
  Header += '\n';
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC, llvm::sys::fs::OF_None);
  if (EC)
    return llvm::createStringError("cannot write '" + Path + "': " + EC.message());
  OS << "\x93NUMPY" << char(1) << char(0);
  OS << char(Header.size() & 0xff) << char((Header.size() >> 8) & 0xff);
  OS << Header;
  OS.write(static_cast<const char *>(T.data()), T.getNumBytes());
  return llvm::Error::success();
}

llvm::Expected<HostTensor> tile::readNpy(llvm::StringRef Path,
                                         std::optional<DType> Hint) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false);
  if (!Buf)
    return llvm::createStringError("cannot read '" + Path +
                                   "': " + Buf.getError().message());
  llvm::StringRef B = (*Buf)->getBuffer();
  auto Bad = [&](const llvm::Twine &Why) {
    return llvm::createStringError("'" + Path + "' is not a usable .npy file: " +
                                   Why);
  };
  if (B.size() < 10 || !B.starts_with("\x93NUMPY"))
    return Bad("bad magic");
  unsigned Major = uint8_t(B[6]);
  size_t HLen, Off;
  if (Major == 1) {
    HLen = uint8_t(B[8]) | size_t(uint8_t(B[9])) << 8;
    Off = 10;
  } else if (Major == 2 || Major == 3) {
    if (B.size() < 12)
      return Bad("truncated header");
    HLen = uint8_t(B[8]) | size_t(uint8_t(B[9])) << 8 |
           size_t(uint8_t(B[10])) << 16 | size_t(uint8_t(B[11])) << 24;
    Off = 12;
  } else {
    return Bad("version " + llvm::Twine(Major));
  }
  if (Off + HLen > B.size())
    return Bad("truncated header");
  llvm::StringRef H = B.substr(Off, HLen);
  auto Field = [&](llvm::StringRef Key) -> llvm::StringRef {
    size_t P = H.find("'" + Key.str() + "'");
    if (P == llvm::StringRef::npos)
      return {};
    llvm::StringRef Rest = H.substr(P + Key.size() + 2).ltrim(" :");
    return Rest;
  };
  llvm::StringRef Descr = Field("descr");
  if (!Descr.consume_front("'"))
    return Bad("no 'descr'");
  Descr = Descr.take_until([](char C) { return C == '\''; });
  static const DType AllTypes[] = {
      DType::I1,  DType::I8,  DType::I16, DType::I32, DType::I64,
      DType::U8,  DType::U16, DType::U32, DType::U64, DType::F16,
      DType::F32, DType::F64};
  std::optional<DType> Found;
  if (Hint && npyDescr(*Hint) == Descr)
    Found = Hint;
  for (DType T : AllTypes)
    if (!Found && npyDescr(T) == Descr)
      Found = T;
  if (!Found)
    return Bad("unsupported dtype '" + Descr + "'");
  DType Want = *Found;
  if (Field("fortran_order").starts_with("True"))
    return Bad("Fortran order is not supported; save a C-ordered array");
  llvm::StringRef S = Field("shape");
  if (!S.consume_front("("))
    return Bad("no 'shape'");
  S = S.take_until([](char C) { return C == ')'; });
  std::vector<int64_t> Shape;
  llvm::SmallVector<llvm::StringRef> Parts;
  S.split(Parts, ',', -1, false);
  for (llvm::StringRef P : Parts) {
    P = P.trim();
    if (P.empty())
      continue;
    int64_t D;
    if (P.getAsInteger(10, D) || D < 0)
      return Bad("bad shape entry '" + P + "'");
    Shape.push_back(D);
  }
  // The header's shape must match the data before anything is allocated:
  // a corrupt or hostile header may claim any size.
  llvm::StringRef Body = B.substr(Off + HLen);
  uint64_t Bytes = getDTypeBytes(Want);
  bool Overflow = false;
  for (int64_t D : Shape)
    Bytes = llvm::SaturatingMultiply(Bytes, uint64_t(D), &Overflow);
  if (Overflow || Bytes != Body.size())
    return Bad("the header's shape (" + S.trim() + ") of " + npyDescr(Want) +
               " needs " +
               (Overflow ? std::string("more than 2^64")
                         : std::to_string(Bytes)) +
               " bytes of data, and the file holds " +
               llvm::Twine(Body.size()));
  HostTensor T(Want, Shape);
  std::memcpy(T.data(), Body.data(), Body.size());
  return T;
}
