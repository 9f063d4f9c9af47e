//===- FragmentLayouts.cpp - Which thread holds which fragment element ----===//

#include "tile/Analysis/FragmentLayouts.h"
#include "tile/IR/Walk.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include <functional>

using namespace tile;
using llvm::dyn_cast;

MatrixLayoutProvider::~MatrixLayoutProvider() = default;

LinearLayout tile::getBlockedLayout(llvm::ArrayRef<int64_t> Shape,
                                   int64_t Threads, int64_t WarpSize,
                                   int64_t Vector) {
  LinearLayout L(Shape.vec());
  // The row-major index's bits, lowest first, as (dim, stride).
  std::vector<std::pair<unsigned, int64_t>> Bits;
  for (unsigned D = Shape.size(); D-- > 0;)
    for (int64_t S = 1; S < Shape[D]; S <<= 1)
      Bits.push_back({D, S});
  size_t Next = 0;
  auto Take = [&](HwDim H, unsigned Count) {
    for (unsigned I = 0; I != Count; ++I) {
      if (Next == Bits.size()) {
        L.addReplication(H, 1);
        continue;
      }
      LinearLayout::Coords B(Shape.size(), 0);
      B[Bits[Next].first] = Bits[Next].second;
      ++Next;
      L.addBasis(H, std::move(B));
    }
  };
  unsigned VBits = log2Exact(Vector);
  VBits = std::min<unsigned>(VBits, Bits.size());
  Take(HwDim::Register, VBits);
  Take(HwDim::Lane, log2Exact(WarpSize));
  Take(HwDim::Warp, log2Exact(Threads / WarpSize));
  Take(HwDim::Register, Bits.size() - Next);
  return L;
}

/// A fragment access whose indices are the loop's variables: for each
/// dimension of the fragment, the loop dimension indexing it, or -1 for a
/// unit dimension indexed by 0.
using AccessMap = llvm::SmallVector<int, 4>;

static std::optional<AccessMap> getAccessMap(llvm::ArrayRef<ExprPtr> Idx,
                                             llvm::ArrayRef<int64_t> Shape,
                                             const ForStmt &F) {
  AccessMap M;
  for (unsigned D = 0; D != Idx.size(); ++D) {
    int Found = -1;
    if (const auto *R = dyn_cast<RefExpr>(Idx[D].get()))
      for (unsigned L = 0; L != F.getDims().size(); ++L)
        if (R->getValue() == F.getDims()[L].Var.get())
          Found = L;
    if (Found < 0) {
      std::optional<int64_t> C = Idx[D]->getConstInt();
      if (!C || *C != 0 || Shape[D] != 1)
        return std::nullopt;
    }
    if (Found >= 0 && llvm::is_contained(M, Found))
      return std::nullopt;
    M.push_back(Found);
  }
  return M;
}

/// The layout of a fragment of \p Shape accessed through \p M in a loop of
/// layout \p Loop.
static LinearLayout layoutThroughAccess(const LinearLayout &Loop,
                                        llvm::ArrayRef<int64_t> Shape,
                                        const AccessMap &M) {
  LinearLayout L(Shape.vec());
  for (unsigned H = 0; H != NumHwDims; ++H)
    for (const LinearLayout::Coords &B : Loop.getBases(HwDim(H))) {
      LinearLayout::Coords C;
      for (int D : M)
        C.push_back(D < 0 ? 0 : B[D]);
      L.addBasis(HwDim(H), std::move(C));
    }
  return L;
}

/// The loop's layout from a fragment access \p M that names every non-unit
/// loop dimension; nullopt when it does not.
static std::optional<LinearLayout>
loopLayoutFromAccess(const LinearLayout &Frag, llvm::ArrayRef<int64_t> LoopExt,
                     const AccessMap &M) {
  for (unsigned L = 0; L != LoopExt.size(); ++L)
    if (LoopExt[L] != 1 && !llvm::is_contained(M, int(L)))
      return std::nullopt;
  LinearLayout Out(LoopExt.vec());
  for (unsigned H = 0; H != NumHwDims; ++H)
    for (const LinearLayout::Coords &B : Frag.getBases(HwDim(H))) {
      LinearLayout::Coords C(LoopExt.size(), 0);
      for (unsigned D = 0; D != M.size(); ++D)
        if (M[D] >= 0)
          C[M[D]] = B[D];
      Out.addBasis(HwDim(H), std::move(C));
    }
  return Out;
}

FragmentLayoutAnalysis::FragmentLayoutAnalysis(
    const KernelStmt &K, const MatrixLayoutProvider *Matrix,
    int64_t VectorBytes)
    : K(K), Matrix(Matrix), VectorBytes(VectorBytes) {
  if (Matrix)
    WarpSize = Matrix->getWarpSize();
  std::optional<int64_t> T = K.getThreads()->getConstInt();
  Threads = T.value_or(0);
  walkStmts(K.getBody(), [&](const Stmt &S) {
    if (const auto *A = dyn_cast<AllocStmt>(&S)) {
      const BufferValue *B = A->getBuffer();
      if (B->getScope() != MemScope::Fragment)
        return;
      Frags.push_back(B);
      std::optional<std::vector<int64_t>> Shape = B->getConstShape();
      if (!Shape)
        WhyNone[B] = "its shape is not constant";
      else if (!llvm::all_of(*Shape, isPowerOfTwo))
        WhyNone[B] = "its shape is not made of powers of two";
      else
        Shapes[B] = *Shape;
    }
    if (const auto *Op = dyn_cast<OpStmt>(&S); Op && Op->getName() == "copy") {
      const Region &Src = Op->getOperand("src").R, &Dst = Op->getOperand("dst").R;
      for (auto [F, G] : {std::make_pair(&Src, &Dst), std::make_pair(&Dst, &Src)})
        if (F->Buf->getScope() == MemScope::Fragment &&
            G->Buf->getScope() == MemScope::Global)
          GlobalCopies.try_emplace(F->Buf, G->Buf->getDType());
    }
  });
  if (!isPowerOfTwo(Threads) || Threads % WarpSize != 0) {
    for (const BufferValue *B : Frags)
      WhyNone.try_emplace(B, "the kernel's thread count is not a power-of-two "
                             "number of warps");
    Shapes.clear();
    return;
  }
  strict();
  while (common() || free()) {
  }
  for (const BufferValue *B : Frags)
    if (!Layouts.count(B))
      WhyNone.try_emplace(B, "no statement decides it (it is not copied "
                             "with global memory, and no gemm, loop, reduce "
                             "or copy relates it to a fragment that has one)");
}

const FragmentLayout *
FragmentLayoutAnalysis::getLayout(const BufferValue *B) const {
  auto It = Layouts.find(B);
  return It == Layouts.end() ? nullptr : &It->second;
}

llvm::StringRef FragmentLayoutAnalysis::getWhyNone(const BufferValue *B) const {
  auto It = WhyNone.find(B);
  return It == WhyNone.end() ? llvm::StringRef() : llvm::StringRef(It->second);
}

bool FragmentLayoutAnalysis::assign(const BufferValue *B, LinearLayout L,
                                    std::string Origin, const Stmt &At) {
  if (!Shapes.count(B))
    return false;
  auto It = Layouts.find(B);
  if (It == Layouts.end()) {
    Layouts.try_emplace(B, FragmentLayout{std::move(L), std::move(Origin),
                                          At.getLoc()});
    return true;
  }
  if (It->second.Layout == L)
    return false;
  for (const LayoutConversion &C : Convs)
    if (C.At == &At && C.Buf == B)
      return false;
  ConversionKind Kind = LinearLayout::classifyConversion(It->second.Layout, L);
  Convs.push_back({&At, B, It->second.Layout, std::move(L), Kind});
  return false;
}

void FragmentLayoutAnalysis::strict() {
  walkStmts(K.getBody(), [&](const Stmt &S) {
    const auto *Op = dyn_cast<OpStmt>(&S);
    if (!Op || Op->getName() != "gemm")
      return;
    const Region &C = Op->getOperand("c").R;
    auto Shape = Shapes.find(C.Buf);
    if (Shape == Shapes.end() || Shape->second.size() != 2 ||
        !C.isWholeBuffer())
      return;
    if (!Matrix) {
      WhyNone.try_emplace(C.Buf, "the target has no matrix instruction");
      return;
    }
    llvm::Expected<LinearLayout> L = Matrix->getAccumulatorLayout(
        *Op, Shape->second[0], Shape->second[1], Threads);
    if (!L) {
      WhyNone.try_emplace(C.Buf, Matrix->getInstructionName().str() + ": " +
                                     llvm::toString(L.takeError()));
      return;
    }
    assign(C.Buf, std::move(*L),
           "the " + Matrix->getInstructionName().str() +
               " accumulator of a gemm",
           *Op);
  });
}

bool FragmentLayoutAnalysis::propagateLoop(const ForStmt &F) {
  std::vector<int64_t> Ext;
  for (const LoopDim &D : F.getDims()) {
    std::optional<int64_t> C = D.Hi->getConstInt();
    if (!C || !isPowerOfTwo(*C))
      return false;
    Ext.push_back(*C);
  }
  // Every fragment access at the loop's own variables.
  struct Access {
    const BufferValue *Buf;
    AccessMap Map;
  };
  std::vector<Access> Accesses;
  auto Visit = [&](const BufferValue *B, llvm::ArrayRef<ExprPtr> Idx) {
    auto Shape = Shapes.find(B);
    if (Shape == Shapes.end())
      return;
    if (std::optional<AccessMap> M = getAccessMap(Idx, Shape->second, F))
      Accesses.push_back({B, *M});
  };
  std::function<void(const Expr &)> VisitExpr = [&](const Expr &E) {
    if (const auto *L = dyn_cast<LoadExpr>(&E))
      Visit(L->getBuffer(), L->getIndices());
    forEachChild(E, VisitExpr);
  };
  walkStmts(F.getBody(), [&](const Stmt &S) {
    if (const auto *St = dyn_cast<StoreStmt>(&S))
      Visit(St->getBuffer(), St->getIndices());
    forEachExprSlot(const_cast<Stmt &>(S), [&](ExprPtr &E) { VisitExpr(*E); });
  });
  // The loop's layout: from the first access with a layout that names
  // every loop dimension.
  std::optional<LinearLayout> Loop;
  const BufferValue *Anchor = nullptr;
  for (const Access &A : Accesses)
    if (const FragmentLayout *FL = getLayout(A.Buf))
      if ((Loop = loopLayoutFromAccess(FL->Layout, Ext, A.Map))) {
        Anchor = A.Buf;
        break;
      }
  if (!Loop)
    return false;
  bool Changed = false;
  for (const Access &A : Accesses) {
    if (A.Buf == Anchor)
      continue;
    bool Full = loopLayoutFromAccess(*Loop, Ext, A.Map).has_value();
    std::string Origin =
        Full ? "the layout of %" + Anchor->getName().str() +
                   " through a parallel loop"
             : "a broadcast of %" + Anchor->getName().str() +
                   " along the dimensions it is not indexed by";
    Changed |= assign(A.Buf, layoutThroughAccess(*Loop, Shapes[A.Buf], A.Map),
                      std::move(Origin), F);
  }
  return Changed;
}

bool FragmentLayoutAnalysis::common() {
  bool Changed = false;
  walkStmts(K.getBody(), [&](const Stmt &S) {
    if (const auto *F = dyn_cast<ForStmt>(&S)) {
      if (F->getLoopKind() == LoopKind::Parallel)
        Changed |= propagateLoop(*F);
      return;
    }
    const auto *Op = dyn_cast<OpStmt>(&S);
    if (!Op)
      return;
    if (Op->getName() == "reduce") {
      const Region &Src = Op->getOperand("src").R, &Dst = Op->getOperand("dst").R;
      const FragmentLayout *SL = getLayout(Src.Buf);
      if (!SL || !Shapes.count(Dst.Buf) || !Src.isWholeBuffer() ||
          !Dst.isWholeBuffer())
        return;
      unsigned Dim = Op->getAttrOrDefault("dim").getInt();
      llvm::SmallVector<unsigned, 4> Keep;
      for (unsigned D = 0; D != SL->Layout.getRank(); ++D)
        if (D != Dim)
          Keep.push_back(D);
      LinearLayout R = SL->Layout.project(Keep);
      if (R.getShape() != llvm::ArrayRef<int64_t>(Shapes[Dst.Buf]))
        return;
      Changed |= assign(Dst.Buf, std::move(R),
                        "the reduce of %" + Src.Buf->getName().str() +
                            " along dimension " + std::to_string(Dim),
                        *Op);
      return;
    }
    if (Op->getName() == "copy") {
      const Region &Src = Op->getOperand("src").R, &Dst = Op->getOperand("dst").R;
      if (!Shapes.count(Src.Buf) || !Shapes.count(Dst.Buf) ||
          !Src.isWholeBuffer() || !Dst.isWholeBuffer() ||
          Shapes[Src.Buf] != Shapes[Dst.Buf])
        return;
      if (const FragmentLayout *SL = getLayout(Src.Buf))
        Changed |= assign(Dst.Buf, SL->Layout,
                          "a copy of %" + Src.Buf->getName().str(), *Op);
      else if (const FragmentLayout *DL = getLayout(Dst.Buf))
        Changed |= assign(Src.Buf, DL->Layout,
                          "a copy into %" + Dst.Buf->getName().str(), *Op);
    }
  });
  return Changed;
}

bool FragmentLayoutAnalysis::free() {
  // The largest fragment copied with global memory and still without a
  // layout; ties go to the first allocated.
  const BufferValue *Best = nullptr;
  int64_t BestElems = 0;
  for (const BufferValue *B : Frags) {
    if (Layouts.count(B) || !Shapes.count(B) || !GlobalCopies.count(B))
      continue;
    int64_t N = 1;
    for (int64_t E : Shapes[B])
      N *= E;
    if (N > BestElems) {
      Best = B;
      BestElems = N;
    }
  }
  if (!Best)
    return false;
  int64_t Bytes = std::max<int64_t>(1, getDTypeBytes(GlobalCopies[Best]));
  int64_t Vector = std::max<int64_t>(1, VectorBytes / Bytes);
  if (!isPowerOfTwo(Vector))
    Vector = 1;
  // The vector runs along the last dimension only.
  Vector = std::min<int64_t>(Vector, Shapes[Best].back());
  const Stmt *At = nullptr;
  walkStmts(K.getBody(), [&](const Stmt &S) {
    if (const auto *A = dyn_cast<AllocStmt>(&S); A && A->getBuffer() == Best)
      At = &S;
  });
  return assign(Best,
                getBlockedLayout(Shapes[Best], Threads, WarpSize, Vector),
                "blocked, " + std::to_string(Vector) +
                    "-element vectors (copied with global memory)",
                *At);
}

/// `line:col` of \p Loc, or `?` without a source.
static std::string where(llvm::SMLoc Loc, const llvm::SourceMgr *SM) {
  if (!SM || !Loc.isValid() || !SM->FindBufferContainingLoc(Loc))
    return "?";
  auto [Line, Col] = SM->getLineAndColumn(Loc);
  return std::to_string(Line) + ":" + std::to_string(Col);
}

/// `lane bits 2, 3, 4` for a replication mask.
static std::string maskBits(int64_t Mask) {
  std::vector<std::string> Bits;
  for (unsigned B = 0; B != 63; ++B)
    if ((Mask >> B) & 1)
      Bits.push_back(std::to_string(B));
  return llvm::join(Bits, ", ");
}

void FragmentLayoutAnalysis::print(llvm::raw_ostream &OS,
                                   const llvm::SourceMgr *SM) const {
  OS << "fragment layouts of the kernel at " << where(K.getLoc(), SM) << " ("
     << Threads << " threads";
  if (Matrix)
    OS << ", " << Matrix->getInstructionName();
  OS << "):\n";
  for (const BufferValue *B : Frags) {
    OS << "  %" << B->getName() << ": ";
    const FragmentLayout *FL = getLayout(B);
    if (!FL) {
      OS << "none: " << getWhyNone(B) << "\n";
      continue;
    }
    OS << FL->Origin << " (" << where(FL->Loc, SM) << ")\n    ";
    FL->Layout.print(OS);
    OS << "\n";
    std::vector<std::string> Rep;
    for (unsigned H = 0; H != NumHwDims; ++H)
      if (int64_t M = FL->Layout.getReplicationMask(HwDim(H)))
        Rep.push_back(getHwDimName(HwDim(H)).str() + " bits " + maskBits(M));
    if (!Rep.empty())
      OS << "    replicated over " << llvm::join(Rep, "; ") << "\n";
  }
  for (const LayoutConversion &C : Convs) {
    OS << "  conversion of %" << C.Buf->getName() << " at "
       << where(C.At->getLoc(), SM) << " ("
       << getConversionKindName(C.Kind) << ") to ";
    C.To.print(OS);
    OS << "\n";
  }
}
