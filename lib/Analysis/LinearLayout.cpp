//===- LinearLayout.cpp - Fragment layouts as linear maps over F2 ---------===//

#include "tile/Analysis/LinearLayout.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

using namespace tile;

llvm::StringRef tile::getHwDimName(HwDim D) {
  switch (D) {
  case HwDim::Register:
    return "register";
  case HwDim::Lane:
    return "lane";
  case HwDim::Warp:
    return "warp";
  }
  llvm_unreachable("unknown hardware dimension");
}

llvm::StringRef tile::getConversionKindName(ConversionKind K) {
  switch (K) {
  case ConversionKind::None:
    return "none";
  case ConversionKind::RegisterPermute:
    return "register permutation";
  case ConversionKind::WarpShuffle:
    return "warp shuffles";
  case ConversionKind::SharedMemory:
    return "shared memory";
  }
  llvm_unreachable("unknown conversion kind");
}

unsigned tile::log2Exact(int64_t X) {
  assert(isPowerOfTwo(X) && "log2Exact of a non-power of two");
  return llvm::Log2_64(uint64_t(X));
}

LinearLayout::LinearLayout(std::vector<int64_t> S) : Shape(std::move(S)) {
  for (int64_t E : Shape)
    assert(isPowerOfTwo(E) && "linear layouts cover power-of-two shapes");
}

LinearLayout &LinearLayout::addBasis(HwDim D, Coords Basis) {
  assert(Basis.size() == Shape.size() && "a basis has one coordinate a dim");
  Bases[unsigned(D)].push_back(std::move(Basis));
  return *this;
}

LinearLayout &LinearLayout::addRun(HwDim D, unsigned Dim, int64_t Stride,
                                   unsigned Count) {
  for (unsigned I = 0; I != Count; ++I) {
    Coords B(Shape.size(), 0);
    B[Dim] = Stride << I;
    addBasis(D, std::move(B));
  }
  return *this;
}

LinearLayout &LinearLayout::addReplication(HwDim D, unsigned Count) {
  for (unsigned I = 0; I != Count; ++I)
    addBasis(D, Coords(Shape.size(), 0));
  return *this;
}

int64_t LinearLayout::getNumElements() const {
  int64_t N = 1;
  for (int64_t E : Shape)
    N *= E;
  return N;
}

LinearLayout::Coords LinearLayout::apply(int64_t Reg, int64_t Lane,
                                         int64_t Warp) const {
  Coords C(Shape.size(), 0);
  int64_t In[NumHwDims] = {Reg, Lane, Warp};
  for (unsigned D = 0; D != NumHwDims; ++D)
    for (unsigned B = 0; B != Bases[D].size(); ++B)
      if ((In[D] >> B) & 1)
        for (unsigned I = 0; I != C.size(); ++I)
          C[I] ^= Bases[D][B][I];
  return C;
}

int64_t LinearLayout::getReplicationMask(HwDim D) const {
  int64_t Mask = 0;
  const std::vector<Coords> &Bs = Bases[unsigned(D)];
  for (unsigned B = 0; B != Bs.size(); ++B)
    if (llvm::all_of(Bs[B], [](int64_t X) { return X == 0; }))
      Mask |= int64_t(1) << B;
  return Mask;
}

/// The row-major linear index of \p C in \p Shape.
static int64_t linearIndex(llvm::ArrayRef<int64_t> Shape,
                           llvm::ArrayRef<int64_t> C) {
  int64_t L = 0;
  for (unsigned I = 0; I != Shape.size(); ++I)
    L = L * Shape[I] + C[I];
  return L;
}

bool LinearLayout::coversTile() const {
  // Over F2 the image is the span of the bases: the tile is covered when
  // the nonzero bases span every coordinate bit, i.e. have full rank.
  unsigned Bits = 0;
  for (int64_t E : Shape)
    Bits += log2Exact(E);
  // Each basis as a bit vector over the concatenated coordinate bits.
  std::vector<uint64_t> Rows;
  for (const std::vector<Coords> &Bs : Bases)
    for (const Coords &B : Bs) {
      uint64_t V = 0;
      unsigned Off = 0;
      for (unsigned I = 0; I != Shape.size(); ++I) {
        V |= uint64_t(B[I]) << Off;
        Off += log2Exact(Shape[I]);
      }
      if (V)
        Rows.push_back(V);
    }
  unsigned Rank = 0;
  for (unsigned Bit = 0; Bit != Bits && Rank != Rows.size(); ++Bit) {
    auto Pivot = std::find_if(Rows.begin() + Rank, Rows.end(),
                              [&](uint64_t R) { return (R >> Bit) & 1; });
    if (Pivot == Rows.end())
      continue;
    std::swap(*Pivot, Rows[Rank]);
    for (unsigned I = 0; I != Rows.size(); ++I)
      if (I != Rank && ((Rows[I] >> Bit) & 1))
        Rows[I] ^= Rows[Rank];
    ++Rank;
  }
  return Rank == Bits;
}

LinearLayout LinearLayout::project(llvm::ArrayRef<unsigned> Dims) const {
  std::vector<int64_t> S;
  for (unsigned D : Dims)
    S.push_back(Shape[D]);
  LinearLayout L(std::move(S));
  for (unsigned D = 0; D != NumHwDims; ++D)
    for (const Coords &B : Bases[D]) {
      Coords P;
      for (unsigned X : Dims)
        P.push_back(B[X]);
      L.Bases[D].push_back(std::move(P));
    }
  return L;
}

ConversionKind LinearLayout::classifyConversion(const LinearLayout &From,
                                                const LinearLayout &To) {
  assert(From.Shape == To.Shape && "conversions keep the shape");
  if (From == To)
    return ConversionKind::None;
  // The (lane, warp) owners of every element under From.
  llvm::DenseMap<int64_t, llvm::SmallVector<std::pair<int64_t, int64_t>, 2>>
      Owners;
  for (int64_t W = 0; W != From.getSize(HwDim::Warp); ++W)
    for (int64_t L = 0; L != From.getSize(HwDim::Lane); ++L)
      for (int64_t R = 0; R != From.getSize(HwDim::Register); ++R)
        Owners[linearIndex(From.Shape, From.apply(R, L, W))].push_back({L, W});
  ConversionKind K = ConversionKind::RegisterPermute;
  for (int64_t W = 0; W != To.getSize(HwDim::Warp); ++W)
    for (int64_t L = 0; L != To.getSize(HwDim::Lane); ++L)
      for (int64_t R = 0; R != To.getSize(HwDim::Register); ++R) {
        auto It = Owners.find(linearIndex(To.Shape, To.apply(R, L, W)));
        if (It == Owners.end())
          return ConversionKind::SharedMemory;
        bool Thread = false, Warp = false;
        for (auto [OL, OW] : It->second) {
          Thread |= OL == L && OW == W;
          Warp |= OW == W;
        }
        if (!Thread)
          K = std::max(K, Warp ? ConversionKind::WarpShuffle
                               : ConversionKind::SharedMemory);
      }
  return K;
}

void LinearLayout::print(llvm::raw_ostream &OS) const {
  for (unsigned D = 0; D != NumHwDims; ++D) {
    OS << (D ? ", " : "") << getHwDimName(HwDim(D)) << ": [";
    for (unsigned B = 0; B != Bases[D].size(); ++B) {
      OS << (B ? ", " : "") << "[";
      for (unsigned I = 0; I != Bases[D][B].size(); ++I)
        OS << (I ? ", " : "") << Bases[D][B][I];
      OS << "]";
    }
    OS << "]";
  }
}

bool LinearLayout::isBitDisjoint() const {
  llvm::SmallVector<int64_t, 4> Seen(Shape.size(), 0);
  for (const std::vector<Coords> &Bs : Bases)
    for (const Coords &B : Bs) {
      unsigned NonZero = 0;
      for (unsigned I = 0; I != B.size(); ++I) {
        if (!B[I])
          continue;
        if (!isPowerOfTwo(B[I]) || (Seen[I] & B[I]))
          return false;
        Seen[I] |= B[I];
        ++NonZero;
      }
      if (NonZero > 1)
        return false;
    }
  return true;
}

static ExprPtr i32(int64_t V) { return std::make_unique<IntLitExpr>(V, DType::I32); }
static ExprPtr bin(BinaryOp Op, ExprPtr L, ExprPtr R) {
  return std::make_unique<BinaryExpr>(Op, std::move(L), std::move(R), DType::I32);
}

ExprPtr LinearLayout::buildCoordinate(unsigned Dim, const Expr &Reg,
                                      const Expr &Lane, const Expr &Warp) const {
  assert(isBitDisjoint() && "coordinates as sums need bit-disjoint bases");
  const Expr *In[NumHwDims] = {&Reg, &Lane, &Warp};
  ExprPtr Sum;
  auto Add = [&](ExprPtr T) {
    Sum = Sum ? bin(BinaryOp::Add, std::move(Sum), std::move(T)) : std::move(T);
  };
  for (unsigned D = 0; D != NumHwDims; ++D) {
    const std::vector<Coords> &Bs = Bases[D];
    for (unsigned B = 0; B != Bs.size();) {
      int64_t Stride = Bs[B][Dim];
      if (!Stride) {
        ++B;
        continue;
      }
      // A run of bits B, B+1, ... with bases Stride, 2 Stride, ...
      unsigned N = 1;
      while (B + N != Bs.size() && Bs[B + N][Dim] == Stride << N)
        ++N;
      ExprPtr T = In[D]->clone();
      if (B)
        T = bin(BinaryOp::Div, std::move(T), i32(int64_t(1) << B));
      T = bin(BinaryOp::Rem, std::move(T), i32(int64_t(1) << N));
      if (Stride != 1)
        T = bin(BinaryOp::Mul, std::move(T), i32(Stride));
      Add(std::move(T));
      B += N;
    }
  }
  return Sum ? std::move(Sum) : i32(0);
}
