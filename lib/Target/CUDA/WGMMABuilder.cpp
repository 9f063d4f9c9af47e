//===- WGMMABuilder.cpp - Per-thread wgmma code for the Hopper passes -----===//

#include "WGMMABuilder.h"
#include "tile/IR/Walk.h"
#include "tile/Transforms/ExprUtils.h"
#include "llvm/Support/MathExtras.h"
#include <functional>

using namespace tile;
using namespace tile::hopper;
using llvm::dyn_cast;

bool hopper::planSharedTile(SharedTile &O, BufferValue *Tile, bool MNMajor,
                            std::string &Why) {
  O.Tile = Tile;
  O.MNMajor = MNMajor;
  std::optional<std::vector<int64_t>> S = Tile->getConstShape();
  if (!S || S->size() != 2) {
    Why = "%" + Tile->getName().str() + " is not a rank-2 tile of constant shape";
    return false;
  }
  O.Rows = (*S)[0];
  O.Contig = (*S)[1];
  int64_t E = getDTypeBits(Tile->getDType()) / 8;
  O.Swizzle = swizzleWidthFor(O.Contig * E);
  if (!O.Swizzle) {
    Why = "rows of %" + Tile->getName().str() + " (" +
          std::to_string(O.Contig * E) +
          " bytes) fit no wgmma swizzle (32, 64 or a multiple of 128 bytes)";
    return false;
  }
  if (O.Rows % 8 != 0) {
    Why = "%" + Tile->getName().str() + " has " + std::to_string(O.Rows) +
          " rows, not a multiple of 8";
    return false;
  }
  int64_t Bytes = O.Rows * O.Contig * E;
  O.StageBytes = (Bytes + StageAlign - 1) / StageAlign * StageAlign;
  return true;
}

std::optional<std::pair<int64_t, int64_t>> hopper::splitColumns(int64_t Cols) {
  int64_t NInst = Cols <= 256 ? Cols : 256;
  if (Cols <= 0 || Cols % 8 != 0 || Cols % NInst != 0)
    return std::nullopt;
  return std::make_pair(NInst, Cols / NInst);
}

bool hopper::provablyMultipleOf(const Expr &E, int64_t D, const LetInits &Lets) {
  std::function<bool(const Expr &, int)> Go = [&](const Expr &X, int Depth) {
    if (Depth > 32)
      return false;
    if (auto C = X.getConstInt())
      return *C % D == 0;
    if (const auto *R = dyn_cast<RefExpr>(&X)) {
      auto It = Lets.find(R->getValue());
      return It != Lets.end() && Go(*It->second, Depth + 1);
    }
    if (const auto *Bi = dyn_cast<BinaryExpr>(&X)) {
      if (Bi->getOp() == BinaryOp::Add || Bi->getOp() == BinaryOp::Sub)
        return Go(*Bi->getLHS(), Depth + 1) && Go(*Bi->getRHS(), Depth + 1);
      if (Bi->getOp() == BinaryOp::Mul)
        return Go(*Bi->getLHS(), Depth + 1) || Go(*Bi->getRHS(), Depth + 1);
    }
    return false;
  };
  return Go(E, 0);
}

bool hopper::checkTileCopy(const OpStmt &Copy, const BufferValue &Tile,
                           const LetInits &Lets, std::string &Why) {
  const Region &Src = Copy.getOperand("src").R;
  const Region &Dst = Copy.getOperand("dst").R;
  std::string Name = "%" + Tile.getName().str();
  if (!Dst.isWholeBuffer()) {
    Why = "the copy into " + Name + " fills part of it";
    return false;
  }
  unsigned Rank = Src.Buf->getRank();
  if (Src.Buf->getScope() != MemScope::Global || Rank < 2 ||
      !Src.Buf->getStrides().empty() || Src.Buf->getDType() != Tile.getDType()) {
    Why = Name + " is not copied from a contiguous global tensor of its dtype";
    return false;
  }
  std::optional<std::vector<int64_t>> S = Tile.getConstShape();
  for (unsigned D = 0; D != Src.Indices.size(); ++D)
    if (const Expr *Ext = Src.Indices[D].Extent.get()) {
      int64_t Want = D + 2 == Rank ? (*S)[0] : D + 1 == Rank ? (*S)[1] : 1;
      if (!ex::isConst(*Ext, Want)) {
        Why = "the copy into " + Name + " names extents other than the tile's";
        return false;
      }
    }
  if (!Src.isWholeBuffer()) {
    const Expr &Col = *Src.Indices[Rank - 1].Offset;
    int64_t Elems = ChunkBytes / (getDTypeBits(Tile.getDType()) / 8);
    if (!provablyMultipleOf(Col, Elems, Lets)) {
      Why = "the column offset of the copy into " + Name +
            " is not provably a multiple of " + std::to_string(Elems) +
            " (16-byte copies)";
      return false;
    }
  } else if (Rank != 2) {
    Why = "the copy into " + Name + " reads a whole tensor of rank " +
          std::to_string(Rank);
    return false;
  }
  return true;
}

StmtPtr WGMMABuilder::perThread(Stmts Body) {
  return ifThen(ex::lt(ref(Tid), lit(Threads)), std::move(Body));
}

WGMMABuilder::Stmts WGMMABuilder::unwrapPerThread(Stmts In) {
  Stmts Out;
  for (StmtPtr &S : In) {
    auto *If = dyn_cast<IfStmt>(S.get());
    if (If && !If->hasElse()) {
      for (StmtPtr &X : If->getThenMutable().Stmts)
        Out.push_back(std::move(X));
      continue;
    }
    Out.push_back(std::move(S));
  }
  return Out;
}

StmtPtr WGMMABuilder::opPending(llvm::StringRef Name, int64_t Pending,
                                BufferValue *Acc) {
  AttributeList Attrs;
  Attrs.set("pending", Attribute::getInt(Pending));
  std::vector<OpOperand> Operands;
  if (Acc)
    Operands.push_back(regionOperand(Acc, {}));
  return op(Name, std::move(Operands), std::move(Attrs));
}

OpOperand WGMMABuilder::regionOperand(BufferValue *B, std::vector<ExprPtr> Offsets,
                                      std::vector<int64_t> Extents) {
  OpOperand O;
  O.Kind = OperandKind::Region;
  O.R.Buf = B;
  for (unsigned I = 0; I != Offsets.size(); ++I)
    O.R.Indices.push_back({std::move(Offsets[I]),
                           I < Extents.size() ? ex::intLit(Extents[I]) : nullptr});
  return O;
}

OpOperand WGMMABuilder::exprOperand(ExprPtr E) {
  OpOperand O;
  O.Kind = OperandKind::Expr;
  O.E = std::move(E);
  return O;
}

ExprPtr WGMMABuilder::call(Intrinsic Fn, ExprPtr A, ExprPtr B, ExprPtr C) {
  std::vector<ExprPtr> Args;
  Args.push_back(std::move(A));
  Args.push_back(std::move(B));
  if (C)
    Args.push_back(std::move(C));
  return ex::call(Fn, std::move(Args));
}

ExprPtr WGMMABuilder::substitute(const Expr &E, const Value *Var, const Expr *Val) {
  ExprPtr R = E.clone();
  if (!Var)
    return R;
  rewriteExpr(R, [&](ExprPtr X) -> ExprPtr {
    if (auto *Ref = dyn_cast<RefExpr>(X.get()); Ref && Ref->getValue() == Var)
      return Val->clone();
    return X;
  });
  return R;
}

WGMMABuilder::Stmts WGMMABuilder::loadTile(const SharedTile &O, const OpStmt &Copy,
                             const Value *Var, const Expr *Val,
                             const Expr &Stage, bool Compact) {
  const Region &Src = Copy.getOperand("src").R;
  BufferValue *G = Src.Buf;
  unsigned Rank = G->getRank(), RowDim = Rank - 2, ColDim = Rank - 1;
  int64_t E = getDTypeBits(O.Tile->getDType()) / 8, CE = ChunkBytes / E;
  int64_t PerRow = O.Contig / CE, Chunks = O.Rows * PerRow;
  int64_t PerThread = (Chunks + Threads - 1) / Threads;
  int64_t W = O.Swizzle, Mask = W / ChunkBytes - 1;
  const Expr &NRows = *G->getShape()[RowDim], &NCols = *G->getShape()[ColDim];
  Stmts Out;
  auto Offset = [&](unsigned D) {
    return Src.isWholeBuffer() ? lit(0) : substitute(*Src.Indices[D].Offset, Var, Val);
  };
  // The single points of the leading dimensions.
  std::vector<Value *> Lead;
  for (unsigned D = 0; D != RowDim; ++D)
    Lead.push_back(let(Out, "g_idx", Offset(D)));
  Value *R0 = let(Out, "g_row0", Offset(RowDim));
  Value *C0 = let(Out, "g_col0", Offset(ColDim));
  Value *Base = let(Out, "stage_base", mul(Stage.clone(), O.StageBytes / E));
  auto LeadInside = [&]() {
    ExprPtr In;
    for (unsigned D = 0; D != Lead.size(); ++D) {
      ExprPtr X = ex::land(ex::ge(ref(Lead[D]), lit(0)),
                           ex::lt(ref(Lead[D]), G->getShape()[D]->clone()));
      In = In ? ex::land(std::move(In), std::move(X)) : std::move(X);
    }
    return In;
  };
  auto I64 = [](ExprPtr X) { return ex::castTo(std::move(X), DType::I64); };
  auto Chunk = [&](bool Fast, Value *TileOff) {
    auto OverChunks = [&](llvm::function_ref<Stmts(Value *)> Body) {
      return Compact ? loop(LoopKind::Serial, "c", lit(PerThread), Body)
                     : unroll("c", PerThread, Body);
    };
    return OverChunks([&](Value *C) {
      Stmts L;
      // Chunk q = tx + c*T is row q / PerRow, column (q % PerRow) * CE. When
      // the block covers whole rows per step, that is row tx / PerRow +
      // c*T/PerRow and the thread's own column for every c: offsets that
      // differ between chunks by constants, so one address register serves
      // all of a thread's chunks.
      bool WholeRows = Threads % PerRow == 0;
      bool Partial = Chunks % Threads != 0;
      Value *Q = WholeRows && !Partial
                     ? nullptr
                     : let(L, "q", add(ref(Tid), mul(ref(C), Threads)));
      Stmts In;
      Value *Row = let(In, "r",
                       WholeRows ? add(div(ref(Tid), PerRow), mul(ref(C), Threads / PerRow))
                                 : div(ref(Q), PerRow));
      Value *Col = let(In, "cc",
                       mul(rem(WholeRows ? ref(Tid) : ref(Q), PerRow), CE));
      // Byte offset in the stored layout, then the swizzle, which permutes
      // 16-byte chunks by address bits 7 and up (8W bytes' worth). With
      // whole rows per step and steps of a multiple of 8 rows, chunk c is
      // thread's chunk 0 plus c steps, the swizzle unchanged.
      auto Swizzled = [&](Stmts &Out, ExprPtr RowE) {
        Value *Lin = let(Out, "lin",
                         add(add(mul(div(ref(Col), W / E), O.Rows * W), mul(std::move(RowE), W)),
                             mul(rem(ref(Col), W / E), E)));
        ExprPtr Xor = ex::binary(
            BinaryOp::Shl,
            ex::binary(BinaryOp::And, ex::binary(BinaryOp::Shr, ref(Lin), lit(7)),
                       lit(Mask)),
            lit(4));
        return ex::binary(BinaryOp::Xor, ref(Lin), std::move(Xor));
      };
      Value *Phys;
      if (WholeRows && (Threads / PerRow) % 8 == 0) {
        ExprPtr Phys0 = Swizzled(In, div(ref(Tid), PerRow));
        Phys = let(In, "phys", add(std::move(Phys0), mul(ref(C), Threads / PerRow * W)));
      } else {
        Phys = let(In, "phys", Swizzled(In, ref(Row)));
      }
      std::vector<ExprPtr> SrcIdx, DstIdx;
      ExprPtr Count;
      if (Fast) {
        // Row-major and contiguous (checked when planning): element
        // (R0 + r, C0 + cc) is at linear offset TileOff + r * cols + cc of
        // the leading points' matrix.
        for (Value *L : Lead)
          SrcIdx.push_back(ref(L));
        SrcIdx.push_back(lit(0));
        SrcIdx.push_back(ex::add(
            ref(TileOff),
            ex::add(ex::mul(I64(ref(Row)), I64(NCols.clone())), I64(ref(Col)))));
        Count = lit(CE);
      } else {
        Value *GR = let(In, "gr", add(ref(R0), ref(Row)));
        Value *GC = let(In, "gc", add(ref(C0), ref(Col)));
        // The column offset is a multiple of the chunk: a chunk starting
        // at gc >= 0 is in range up to the row's end, one starting below
        // 0 is wholly outside.
        ExprPtr InRows = ex::land(
            ex::land(ex::ge(ref(GR), lit(0)), ex::lt(ref(GR), NRows.clone())),
            ex::ge(ref(GC), lit(0)));
        if (ExprPtr L = LeadInside())
          InRows = ex::land(std::move(L), std::move(InRows));
        ExprPtr Left = ex::sub(NCols.clone(), ref(GC));
        Value *N = let(In, "n",
                       call(Intrinsic::Select, std::move(InRows),
                            call(Intrinsic::Max,
                                 call(Intrinsic::Min, std::move(Left), lit(CE)),
                                 lit(0)),
                            lit(0)));
        // Nothing is read for a count of 0; the address stays in the
        // tensor.
        auto Clamp = [&](Value *V) {
          return call(Intrinsic::Select, ex::binary(BinaryOp::Gt, ref(N), lit(0)),
                      ref(V), lit(0));
        };
        for (Value *L : Lead)
          SrcIdx.push_back(Clamp(L));
        SrcIdx.push_back(Clamp(GR));
        SrcIdx.push_back(Clamp(GC));
        Count = ref(N);
      }
      DstIdx.push_back(add(ref(Base), div(ref(Phys), E)));
      std::vector<int64_t> SrcExt(Rank, 1);
      SrcExt.back() = CE;
      std::vector<OpOperand> Operands;
      Operands.push_back(regionOperand(G, std::move(SrcIdx), SrcExt));
      Operands.push_back(regionOperand(O.Tile, std::move(DstIdx), {CE}));
      Operands.push_back(exprOperand(std::move(Count)));
      AttributeList Attrs;
      if (Fast)
        Attrs.set("full", Attribute::getBool(true));
      In.push_back(op("cuda.ldgsts", std::move(Operands), std::move(Attrs),
                      Copy.getLoc()));
      if (!Partial)
        for (StmtPtr &X : In)
          L.push_back(std::move(X));
      else
        L.push_back(ifThen(ex::lt(ref(Q), lit(Chunks)), std::move(In)));
      return L;
    });
  };
  if (Compact) {
    Out.push_back(Chunk(false, nullptr));
    return Out;
  }
  // The tile inside the tensor, rows of whole 16-byte chunks (the column
  // offset is a multiple of the chunk, checked when planning).
  ExprPtr Inside = ex::land(
      ex::land(ex::ge(ref(R0), lit(0)),
               ex::le(add(ref(R0), lit(O.Rows)), NRows.clone())),
      ex::land(ex::ge(ref(C0), lit(0)),
               ex::le(add(ref(C0), lit(O.Contig)), NCols.clone())));
  if (ExprPtr L = LeadInside())
    Inside = ex::land(std::move(L), std::move(Inside));
  Value *Full = let(Out, "g_full",
                    ex::land(std::move(Inside),
                             ex::binary(BinaryOp::Eq, rem(NCols.clone(), CE), lit(0))));
  Stmts FastPath;
  Value *TileOff = let(FastPath, "g_off",
                       ex::add(ex::mul(I64(ref(R0)), I64(NCols.clone())),
                               I64(ref(C0))));
  FastPath.push_back(Chunk(true, TileOff));
  Stmts Clamped;
  Clamped.push_back(Chunk(false, nullptr));
  Out.push_back(ifElse(ref(Full), std::move(FastPath), std::move(Clamped)));
  return Out;
}

WGMMABuilder::Stmts WGMMABuilder::wgmmaGemm(const WgmmaShape &S, const SharedTile *A,
                              BufferValue *ARegs, int64_t ARegsCols,
                              const SharedTile &B, BufferValue *C, Value *WG,
                              const Expr *AStage, const Expr *BStage,
                              bool ZeroFirst, llvm::SMLoc Loc) {
  int64_t E = getDTypeBits(S.Ty) / 8;
  auto StageOff = [&](const Expr *Stage, int64_t Bytes, ExprPtr Off) {
    return Stage ? add(mul(Stage->clone(), Bytes), std::move(Off)) : std::move(Off);
  };
  Stmts L;
  if (ARegs) {
    std::vector<OpOperand> FenceA;
    FenceA.push_back(regionOperand(ARegs, {}));
    L.push_back(op("cuda.wgmma_fence", std::move(FenceA)));
  }
  std::vector<OpOperand> FenceAcc;
  FenceAcc.push_back(regionOperand(C, {}));
  L.push_back(op("cuda.wgmma_fence", std::move(FenceAcc)));
  L.push_back(unroll("kk", S.BK / InstK, [&](Value *KK) {
    Stmts KL;
    KL.push_back(unroll("mt", S.MT, [&](Value *MT) {
      Stmts ML;
      Value *AO = nullptr;
      if (A) {
        Value *Row0 = let(ML, "row0", mul(add(mul(ref(WG), S.MT), ref(MT)), InstM));
        int64_t WA = A->Swizzle;
        ExprPtr AOff;
        if (!A->MNMajor)
          AOff = add(add(mul(div(mul(ref(KK), InstK * E), WA), A->Rows * WA),
                         mul(ref(Row0), WA)),
                     rem(mul(ref(KK), InstK * E), WA));
        else
          AOff = add(mul(div(mul(ref(Row0), E), WA), A->Rows * WA),
                     mul(ref(KK), InstK * WA));
        AO = let(ML, "a_off", StageOff(AStage, A->StageBytes, std::move(AOff)));
      }
      ML.push_back(unroll("ni", S.NI, [&](Value *NI) {
        // One instruction; with Zero, it overwrites the accumulator
        // (scale-d = 0).
        auto Mma = [&](bool Zero) {
          int64_t WB = B.Swizzle;
          ExprPtr N0 = mul(ref(NI), S.NInst);
          ExprPtr BOff;
          if (B.MNMajor)
            BOff = add(mul(div(mul(std::move(N0), E), WB), B.Rows * WB),
                       mul(ref(KK), InstK * WB));
          else
            BOff = add(add(mul(div(mul(ref(KK), InstK * E), WB), B.Rows * WB),
                           mul(std::move(N0), WB)),
                       rem(mul(ref(KK), InstK * E), WB));
          std::vector<OpOperand> Operands;
          if (A) {
            Operands.push_back(regionOperand(A->Tile, {}));
          } else {
            // k-step kk of slice mt: locals mt*K/2 + 8kk .. + 7.
            std::vector<ExprPtr> AIdx;
            AIdx.push_back(add(mul(ref(MT), ARegsCols / 2), mul(ref(KK), 8)));
            Operands.push_back(regionOperand(ARegs, std::move(AIdx), {8}));
          }
          Operands.push_back(regionOperand(B.Tile, {}));
          std::vector<ExprPtr> AccOff;
          AccOff.push_back(mul(add(mul(ref(MT), S.NI), ref(NI)), S.NInst / 2));
          Operands.push_back(regionOperand(C, std::move(AccOff), {S.NInst / 2}));
          if (A)
            Operands.push_back(exprOperand(ref(AO)));
          Operands.push_back(
              exprOperand(StageOff(BStage, B.StageBytes, std::move(BOff))));
          AttributeList Attrs;
          Attrs.set("n", Attribute::getInt(S.NInst));
          if (A && A->MNMajor)
            Attrs.set("mn_major_a", Attribute::getBool(true));
          if (B.MNMajor)
            Attrs.set("mn_major_b", Attribute::getBool(true));
          auto Fields = [&](const SharedTile &O, const char *Sw, const char *LBO,
                            const char *SBO) {
            Attrs.set(Sw, Attribute::getInt(O.Swizzle));
            Attrs.set(LBO, Attribute::getInt(O.MNMajor ? O.Rows * O.Swizzle : 16));
            Attrs.set(SBO, Attribute::getInt(8 * O.Swizzle));
          };
          if (A)
            Fields(*A, "swizzle_a", "lbo_a", "sbo_a");
          Fields(B, "swizzle_b", "lbo_b", "sbo_b");
          if (Zero)
            Attrs.set("zero_c", Attribute::getBool(true));
          Stmts T;
          T.push_back(op(A ? "cuda.wgmma_mma" : "cuda.wgmma_mma_rs",
                         std::move(Operands), std::move(Attrs), Loc));
          return T;
        };
        if (!ZeroFirst)
          return Mma(false);
        Stmts NL;
        NL.push_back(ifElse(ex::binary(BinaryOp::Eq, ref(KK), lit(0)), Mma(true),
                            Mma(false)));
        return NL;
      }));
      return ML;
    }));
    return KL;
  }));
  L.push_back(op("cuda.wgmma_commit"));
  return L;
}

ExprPtr WGMMABuilder::storedElement(Stmts &Out, const SharedTile &O, ExprPtr Row,
                                    ExprPtr Col, const Expr *Stage) {
  int64_t E = getDTypeBits(O.Tile->getDType()) / 8, W = O.Swizzle;
  // byte(r, c) = (c*E / W) * Rows*W + r*W + (c*E % W), then the chunk
  // swizzle phys = byte ^ (((byte >> 7) & (W/16 - 1)) << 4) (WGMMALayout.h);
  // stages are whole multiples of 1024 bytes, which the swizzle leaves be.
  Value *Byte = let(Out, "byte",
                    add(add(mul(div(mul(Col->clone(), E), W), O.Rows * W),
                            mul(std::move(Row), W)),
                        rem(mul(std::move(Col), E), W)));
  ExprPtr Phys = ex::binary(BinaryOp::Xor, ref(Byte),
                            mul(rem(div(ref(Byte), 128), W / ChunkBytes), ChunkBytes));
  if (Stage)
    Phys = add(mul(Stage->clone(), O.StageBytes), std::move(Phys));
  return div(std::move(Phys), E);
}

ExprPtr WGMMABuilder::storedElementSplit(Stmts &Out, const SharedTile &O,
                                         ExprPtr RowFine, ExprPtr RowCoarse,
                                         ExprPtr ColFine, int64_t ColFineMax,
                                         ExprPtr ColCoarse, int64_t ColAlign,
                                         const Expr *Stage) {
  int64_t E = getDTypeBits(O.Tile->getDType()) / 8, W = O.Swizzle;
  int64_t AlignBytes = ColAlign * E;
  // byte = (cb / W) * Rows*W + (rf + rc)*W + (cf*E | cb % W) when cf*E is
  // below the alignment of cb = ColCoarse*E (disjoint bits, no carry past
  // the row), and the key ((byte >> 7) & 7) is rf % 8 when Rows and rc are
  // multiples of 8.
  if (W != 128 || O.Rows % 8 != 0 || !llvm::isPowerOf2_64(AlignBytes) ||
      AlignBytes > W || ColFineMax * E >= AlignBytes)
    return storedElement(Out, O, add(std::move(RowFine), std::move(RowCoarse)),
                         add(std::move(ColFine), std::move(ColCoarse)), Stage);
  Value *Fine = let(Out, "phys_fine",
                    ex::binary(BinaryOp::Xor,
                               add(mul(RowFine->clone(), W), mul(std::move(ColFine), E)),
                               mul(rem(std::move(RowFine), 8), ChunkBytes)));
  Value *CB = let(Out, "coarse_byte", mul(std::move(ColCoarse), E));
  ExprPtr Idx = add(div(ex::binary(BinaryOp::Xor, ref(Fine), rem(ref(CB), W)), E),
                    add(mul(div(ref(CB), W), O.Rows * W / E),
                        mul(std::move(RowCoarse), W / E)));
  if (Stage)
    Idx = add(mul(Stage->clone(), O.StageBytes / E), std::move(Idx));
  return Idx;
}

WGMMABuilder::Stmts WGMMABuilder::mmaSyncGemm(const WgmmaShape &S, const SharedTile *A,
                                              BufferValue *ARegs, int64_t ARegsCols,
                                              const SharedTile &B, BufferValue *C,
                                              Value *WG, const Expr *AStage,
                                              const Expr *BStage, bool ZeroFirst,
                                              llvm::SMLoc Loc) {
  constexpr int64_t MmaN = 8, WarpSize = 32;
  int64_t Tiles = S.NI * S.NInst / MmaN, PerInst = S.NInst / MmaN;
  assert(PerInst % 2 == 0 && "mma.sync B operands come in pairs of n8 tiles");
  Stmts L;
  if (ZeroFirst)
    L.push_back(unroll("e", S.MT * Tiles * 4, [&](Value *E) {
      Stmts Z;
      std::vector<ExprPtr> Idx;
      Idx.push_back(ref(E));
      Z.push_back(std::make_unique<StoreStmt>(C, std::move(Idx), ex::zero(DType::F32)));
      return Z;
    }));
  Value *Lane = let(L, "lane", rem(ref(Tid), WarpSize));
  Value *Quad = let(L, "quarter", div(ref(Lane), 8));
  Value *Warp = let(L, "wq", div(rem(ref(Tid), WarpgroupSize), WarpSize));
  BufferValue *AF = nullptr, *BF = nullptr;
  if (A)
    L.push_back(allocLocal("a_frag", S.Ty, 8, AF));
  L.push_back(allocLocal("b_frag", S.Ty, 8, BF));
  // ldmatrix.x4 of four 8x8 matrices, thread l giving row l % 8 of matrix
  // l / 8 at (Row, Col) of the stored tile.
  // A lane's row within the 16x16 block (fine) and the block's origin
  // (coarse: multiples of 8 rows and of 16 columns), split so that the
  // swizzled offsets of a gemm's ldmatrix share registers
  // (storedElementSplit).
  auto Ldmatrix = [&](Stmts &Into, const SharedTile &O, ExprPtr RowFine,
                      ExprPtr RowCoarse, ExprPtr ColFine, ExprPtr ColCoarse,
                      const Expr *Stage, bool Trans, BufferValue *Dst) {
    ExprPtr Idx = storedElementSplit(Into, O, std::move(RowFine), std::move(RowCoarse),
                                     std::move(ColFine), 8, std::move(ColCoarse), 16,
                                     Stage);
    std::vector<ExprPtr> SrcIdx, DstIdx;
    SrcIdx.push_back(std::move(Idx));
    DstIdx.push_back(lit(0));
    std::vector<OpOperand> Operands;
    Operands.push_back(regionOperand(O.Tile, std::move(SrcIdx)));
    Operands.push_back(regionOperand(Dst, std::move(DstIdx), {8}));
    AttributeList Attrs;
    Attrs.set("num", Attribute::getIdent("x4"));
    if (Trans)
      Attrs.set("trans", Attribute::getBool(true));
    Into.push_back(op("cuda.ldmatrix", std::move(Operands), std::move(Attrs), Loc));
  };
  L.push_back(unroll("kk", S.BK / InstK, [&](Value *KK) {
    Stmts KL;
    KL.push_back(unroll("mt", S.MT, [&](Value *MT) {
      Stmts ML;
      // The warp's 16 rows of slice mt.
      Value *Row0 = let(ML, "row0", add(mul(add(mul(ref(WG), S.MT), ref(MT)), InstM),
                                        mul(ref(Warp), 16)));
      if (A) {
        // a[0..7] = rows 0-7 / 8-15 at k 0-7, then at k 8-15.
        if (!A->MNMajor)
          Ldmatrix(ML, *A, add(rem(ref(Lane), 8), mul(rem(ref(Quad), 2), 8)), ref(Row0),
                   mul(div(ref(Quad), 2), 8), mul(ref(KK), InstK), AStage, false, AF);
        else
          Ldmatrix(ML, *A, add(rem(ref(Lane), 8), mul(div(ref(Quad), 2), 8)),
                   mul(ref(KK), InstK), mul(rem(ref(Quad), 2), 8), ref(Row0), AStage,
                   true, AF);
      }
      ML.push_back(unroll("np", Tiles / 2, [&](Value *NP) {
        Stmts NL;
        // b[0..3] of n8 tile 2np, b[4..7] of tile 2np + 1: k 0-7 and 8-15
        // of each.
        if (!B.MNMajor)
          Ldmatrix(NL, B, add(rem(ref(Lane), 8), mul(div(ref(Quad), 2), 8)),
                   mul(ref(NP), 16), mul(rem(ref(Quad), 2), 8), mul(ref(KK), InstK),
                   BStage, false, BF);
        else
          Ldmatrix(NL, B, add(rem(ref(Lane), 8), mul(rem(ref(Quad), 2), 8)),
                   mul(ref(KK), InstK), mul(div(ref(Quad), 2), 8), mul(ref(NP), 16),
                   BStage, true, BF);
        NL.push_back(unroll("h", 2, [&](Value *H) {
          Stmts HL;
          // n8 tile j = 2np + h: instruction j / PerInst of the slice, its
          // accumulators 4 (j % PerInst) .. + 3.
          ExprPtr J = add(mul(ref(NP), 2), ref(H));
          std::vector<ExprPtr> AIdx, BIdx, CIdx;
          std::vector<OpOperand> Operands;
          if (A) {
            AIdx.push_back(lit(0));
            Operands.push_back(regionOperand(AF, std::move(AIdx), {8}));
          } else {
            // k-step kk of slice mt: locals mt*K/2 + 8kk .. + 7, which are
            // a[0..7] of the m16n8k16 A operand (WGMMABuilder.h).
            AIdx.push_back(add(mul(ref(MT), ARegsCols / 2), mul(ref(KK), 8)));
            Operands.push_back(regionOperand(ARegs, std::move(AIdx), {8}));
          }
          BIdx.push_back(mul(ref(H), 4));
          Operands.push_back(regionOperand(BF, std::move(BIdx), {4}));
          CIdx.push_back(add(mul(add(mul(ref(MT), S.NI), div(J->clone(), PerInst)),
                                 S.NInst / 2),
                             mul(rem(J->clone(), PerInst), 4)));
          Operands.push_back(regionOperand(C, std::move(CIdx), {4}));
          HL.push_back(op("cuda.mma_sync", std::move(Operands), AttributeList(), Loc));
          return HL;
        }));
        return NL;
      }));
      return ML;
    }));
    return KL;
  }));
  return L;
}

WGMMABuilder::Stmts WGMMABuilder::lowerFill(const OpStmt &Op, BufferValue *Frag, int64_t Elems) {
  DType Ty = Frag->getDType();
  ExprPtr V = Op.getName() == "fill"
                  ? ex::castTo(Op.getOperand("value").E->clone(), Ty)
                  : ex::zero(Ty);
  Stmts Body;
  Body.push_back(unroll("e", Elems, [&](Value *E) {
    Stmts L;
    std::vector<ExprPtr> Idx;
    Idx.push_back(ref(E));
    L.push_back(std::make_unique<StoreStmt>(Frag, std::move(Idx), V->clone()));
    return L;
  }));
  Stmts Out;
  Out.push_back(perThread(std::move(Body)));
  return Out;
}

ExprPtr WGMMABuilder::alignedTest(Stmts &Body, llvm::StringRef Name, BufferValue *Tensor,
                                  int64_t Bytes, bool Specialize, llvm::SMLoc Loc) {
  BufferValue *Ok = nullptr;
  Body.push_back(allocLocal(Name, DType::I32, 1, Ok));
  std::vector<OpOperand> Operands;
  Operands.push_back(regionOperand(Tensor, {}));
  std::vector<ExprPtr> Idx;
  Idx.push_back(lit(0));
  Operands.push_back(regionOperand(Ok, std::move(Idx)));
  AttributeList Attrs;
  Attrs.set("bytes", Attribute::getInt(Bytes));
  if (Specialize)
    Attrs.set("specialize", Attribute::getBool(true));
  Body.push_back(op("cuda.aligned", std::move(Operands), std::move(Attrs), Loc));
  std::vector<ExprPtr> OkIdx;
  OkIdx.push_back(lit(0));
  return ex::binary(BinaryOp::Ne, ex::load(Ok, std::move(OkIdx)), lit(0));
}

WGMMABuilder::Stmts WGMMABuilder::lowerCopyOut(const OpStmt &Op, BufferValue *Frag, int64_t MT,
                                 int64_t NInst, int64_t NI,
                                 std::pair<unsigned, unsigned> Dims, bool Predicated) {
  const Region &Dst = Op.getOperand("dst").R;
  unsigned RowDim = Dims.first, ColDim = Dims.second;
  unsigned Rank = Dst.Buf->getRank();
  bool Global = Dst.Buf->getScope() == MemScope::Global;
  bool Pairs = isFloat(Dst.Buf->getDType()) && ColDim == Rank - 1 &&
               Dst.Buf->getStrides().empty() &&
               (Global || Dst.Buf->getScope() == MemScope::Shared);
  auto Offset = [&](unsigned D) {
    return Dst.isWholeBuffer() ? lit(0) : Dst.Indices[D].Offset->clone();
  };
  Stmts Body;
  Value *WG = let(Body, "wg", div(ref(Tid), WarpgroupSize));
  Value *Warp = let(Body, "warp", div(rem(ref(Tid), WarpgroupSize), 32));
  Value *Lane = let(Body, "lane", rem(ref(Tid), 32));
  // A pair of locals is stored with one vector store where the pair's
  // first column is even in a row of even length (so that both elements
  // are in range when the first one is) and, in global memory, the
  // tensor's data starts at a multiple of the pair's size, tested once
  // (cuda.aligned) rather than at every store.
  Value *PairOK = nullptr;
  if (Pairs) {
    ExprPtr Even = ex::land(ex::binary(BinaryOp::Eq, rem(Offset(ColDim), 2), lit(0)),
                            ex::binary(BinaryOp::Eq,
                                       rem(Dst.Buf->getShape()[ColDim]->clone(), 2),
                                       lit(0)));
    if (Global && Predicated)
      // The single-element side is worth a specialization without it.
      Even = ex::land(std::move(Even),
                      alignedTest(Body, "pair_aligned", Dst.Buf,
                                  2 * getDTypeBytes(Dst.Buf->getDType()),
                                  /*Specialize=*/true, Op.getLoc()));
    PairOK = let(Body, "pair_ok", std::move(Even));
  }
  // Calls Fn(L, row, col, e) for each pair j of locals 2j, 2j + 1 at
  // (row0 + (j % 2) * 8, col0 + (j / 2) * 8 + 0, 1), unrolled.
  auto EachPair = [&](llvm::function_ref<void(Stmts &, Value *, Value *, Value *)> Fn) {
    return unroll("mt", MT, [&](Value *MTV) {
      Stmts ML;
      Value *Row0 = let(ML, "row0",
                        add(mul(add(mul(ref(WG), MT), ref(MTV)), InstM),
                            add(mul(ref(Warp), 16), div(ref(Lane), 4))));
      ML.push_back(unroll("ni", NI, [&](Value *NIV) {
        Stmts NL;
        Value *Col0 = let(NL, "col0", add(mul(ref(NIV), NInst), mul(rem(ref(Lane), 4), 2)));
        NL.push_back(unroll("j", NInst / 4, [&](Value *J) {
          Stmts L;
          Value *Row = let(L, "row", add(ref(Row0), mul(rem(ref(J), 2), 8)));
          Value *Col = let(L, "col", add(ref(Col0), mul(div(ref(J), 2), 8)));
          Value *E = let(L, "e", add(mul(add(mul(ref(MTV), NI), ref(NIV)), NInst / 2),
                                     mul(ref(J), 2)));
          Fn(L, Row, Col, E);
          return L;
        }));
        return NL;
      }));
      return ML;
    });
  };
  // The index of element (row, col + Dc) in X, and whether it is inside X.
  auto Index = [&](Value *Row, Value *Col, int64_t Dc, ExprPtr &InRange) {
    std::vector<ExprPtr> Idx;
    for (unsigned D = 0; D != Rank; ++D) {
      ExprPtr X = Offset(D);
      if (D == RowDim)
        X = add(std::move(X), ref(Row));
      else if (D == ColDim)
        X = add(add(std::move(X), ref(Col)), lit(Dc));
      if (Global) {
        InRange = ex::land(std::move(InRange), ex::ge(X->clone(), lit(0)));
        InRange = ex::land(std::move(InRange),
                           ex::lt(X->clone(), Dst.Buf->getShape()[D]->clone()));
      }
      Idx.push_back(std::move(X));
    }
    return Idx;
  };
  // Element stores, each inside X.
  auto Elements = [&](Stmts &L, Value *Row, Value *Col, Value *E) {
    for (int64_t Dc : {0, 1}) {
      ExprPtr In;
      std::vector<ExprPtr> Idx = Index(Row, Col, Dc, In);
      std::vector<ExprPtr> AccIdx;
      AccIdx.push_back(add(ref(E), lit(Dc)));
      StmtPtr St = std::make_unique<StoreStmt>(
          Dst.Buf, std::move(Idx),
          ex::castTo(ex::load(Frag, std::move(AccIdx)), Dst.Buf->getDType()));
      if (In) {
        Stmts G;
        G.push_back(std::move(St));
        L.push_back(ifThen(std::move(In), std::move(G)));
      } else {
        L.push_back(std::move(St));
      }
    }
  };
  auto PairStore = [&](Value *Row, Value *Col, Value *E, ExprPtr &In) {
    std::vector<ExprPtr> AccIdx;
    AccIdx.push_back(ref(E));
    std::vector<OpOperand> Operands;
    Operands.push_back(regionOperand(Frag, std::move(AccIdx), {2}));
    Operands.push_back(regionOperand(Dst.Buf, Index(Row, Col, 0, In)));
    return op("cuda.store_pair", std::move(Operands), AttributeList(), Op.getLoc());
  };
  // The epilogue of a global tensor, unrolled here rather than by an
  // `unroll` loop so that each store's column offset from col0 is a
  // constant: cuda.store_if of the W locals from e + Dc at (row, col0 + D)
  // for D = (j / 2) * 8 + Dc, where that element is inside X, with D as
  // the store's immediate offset (the stores of a row share one address).
  auto EachStoreIf = [&](int64_t W) {
    return unroll("mt", MT, [&](Value *MTV) {
      Stmts ML;
      Value *Row0 = let(ML, "row0",
                        add(mul(add(mul(ref(WG), MT), ref(MTV)), InstM),
                            add(mul(ref(Warp), 16), div(ref(Lane), 4))));
      Value *Row8 = let(ML, "row8", add(ref(Row0), 8));
      ML.push_back(unroll("ni", NI, [&](Value *NIV) {
        Stmts L;
        Value *Col0 = let(L, "col0", add(mul(ref(NIV), NInst), mul(rem(ref(Lane), 4), 2)));
        Value *E0 = let(L, "e0", mul(add(mul(ref(MTV), NI), ref(NIV)), NInst / 2));
        for (int64_t J = 0; J != NInst / 4; ++J) {
          Value *Row = J % 2 ? Row8 : Row0;
          for (int64_t Dc = 0; Dc < 2; Dc += W) {
            int64_t D = (J / 2) * 8 + Dc;
            ExprPtr In, Unused;
            Index(Row, Col0, D, In);
            std::vector<ExprPtr> AccIdx;
            AccIdx.push_back(add(ref(E0), lit(2 * J + Dc)));
            std::vector<OpOperand> Operands;
            Operands.push_back(W == 1 ? regionOperand(Frag, std::move(AccIdx))
                                      : regionOperand(Frag, std::move(AccIdx), {W}));
            Operands.push_back(regionOperand(Dst.Buf, Index(Row, Col0, 0, Unused)));
            Operands.push_back(exprOperand(std::move(In)));
            AttributeList Attrs;
            if (D)
              Attrs.set("offset", Attribute::getInt(D));
            L.push_back(op("cuda.store_if", std::move(Operands), std::move(Attrs),
                           Op.getLoc()));
          }
        }
        return L;
      }));
      return ML;
    });
  };
  if (!Pairs) {
    Body.push_back(EachPair(Elements));
  } else if (Global && Predicated) {
    // Under pair_ok the second element is in range where the first is;
    // otherwise every element is stored alone. Two sides rather than a
    // choice per pair, and predicated stores (cuda.store_if) rather than
    // a branch per store, keep the epilogue's code small and nearly
    // branch-free: ptxas's time on a 128x128 tile's epilogue was most of
    // its time on the GEMM (docs/Targets.md).
    Stmts Paired;
    Paired.push_back(EachStoreIf(2));
    Stmts Single;
    Single.push_back(EachStoreIf(1));
    Body.push_back(ifElse(ref(PairOK), std::move(Paired), std::move(Single)));
  } else {
    // Per pair: one cuda.store_pair where pair_ok holds and both elements
    // are inside X, else the elements alone.
    Body.push_back(EachPair([&](Stmts &L, Value *Row, Value *Col, Value *E) {
      Stmts Two;
      Elements(Two, Row, Col, E);
      ExprPtr In0, In1;
      StmtPtr St = PairStore(Row, Col, E, In0);
      Index(Row, Col, 1, In1);
      ExprPtr Cond = ref(PairOK);
      if (In0)
        Cond = ex::land(ex::land(std::move(Cond), std::move(In0)), std::move(In1));
      Stmts Pair;
      Pair.push_back(std::move(St));
      L.push_back(ifElse(std::move(Cond), std::move(Pair), std::move(Two)));
    }));
  }
  Stmts Out;
  Out.push_back(perThread(std::move(Body)));
  if (Dst.Buf->getScope() == MemScope::Shared)
    Out.push_back(op("barrier"));
  return Out;
}

std::string WGMMABuilder::whyNotStaged(const OpStmt &Op, unsigned ColDim, int64_t Cols) {
  const BufferValue &Dst = *Op.getOperand("dst").R.Buf;
  if (ColDim != Dst.getRank() - 1 || !Dst.getStrides().empty())
    return "the destination's columns are not its contiguous last dimension";
  if (getDTypeBits(Dst.getDType()) != 16)
    return "the destination's elements are not 16-bit";
  if ((InstM * Cols / 8) % WarpgroupSize != 0)
    return "the fragment's rows are not whole 16-byte chunks per thread";
  if (Cols * 2 < MinStagedRowBytes)
    return "rows of " + std::to_string(Cols * 2) + " bytes, under " +
           std::to_string(MinStagedRowBytes) +
           " (staged, the causal grouped-query d64 attention ran 6% slower on an "
           "H100; docs/Performance.md)";
  return "";
}

WGMMABuilder::Stmts WGMMABuilder::lowerStagedCopyOut(const OpStmt &Op, BufferValue *Frag,
                                                     int64_t MT, int64_t NInst, int64_t NI,
                                                     std::pair<unsigned, unsigned> Dims,
                                                     const StagedCopy &S) {
  const Region &Dst = Op.getOperand("dst").R;
  const SharedTile &T = *S.Tile;
  unsigned RowDim = Dims.first, ColDim = Dims.second, Rank = Dst.Buf->getRank();
  int64_t Cols = NInst * NI, ChunkElems = ChunkBytes / (getDTypeBits(T.Tile->getDType()) / 8);
  int64_t ChunksPerRow = Cols / ChunkElems;
  assert(Dst.Buf->getScope() == MemScope::Global && ColDim == Rank - 1 &&
         (64 * ChunksPerRow) % WarpgroupSize == 0 && "not a stageable copy");
  auto Offset = [&](unsigned D) {
    return Dst.isWholeBuffer() ? lit(0) : Dst.Indices[D].Offset->clone();
  };
  Stmts Body;
  // 16-byte chunks of X: its data 16-byte aligned (one test), its rows and
  // the copy's column offset whole chunks.
  ExprPtr Cond = ex::land(
      ex::land(alignedTest(Body, "chunk_aligned", Dst.Buf, ChunkBytes,
                           /*Specialize=*/false, Op.getLoc()),
               ex::binary(BinaryOp::Eq, rem(Offset(ColDim), ChunkElems), lit(0))),
      ex::binary(BinaryOp::Eq, rem(Dst.Buf->getShape()[ColDim]->clone(), ChunkElems),
                 lit(0)));
  Value *StageOK = let(Body, "stage_ok", std::move(Cond));

  Stmts Staged;
  Value *WG = let(Staged, "wg", div(ref(Tid), WarpgroupSize));
  Value *Warp = let(Staged, "warp", div(rem(ref(Tid), WarpgroupSize), 32));
  Value *Lane = let(Staged, "lane", rem(ref(Tid), 32));
  // 1. Each thread's pairs (row 16w + l/4 + 8(j%2), column 8(j/2) + 2(l%4)
  // of each slice and N-instruction) into the tile, converted: a warp's
  // 32 pairs of one store fall in 8 rows of distinct chunks under the
  // swizzle, all 32 banks.
  Staged.push_back(unroll("mt", MT, [&](Value *MTV) {
    Stmts ML;
    ExprPtr SliceRow = mul(add(mul(ref(WG), MT), ref(MTV)), InstM);
    ML.push_back(unroll("ni", NI, [&](Value *NIV) {
      Stmts NL;
      NL.push_back(unroll("j", NInst / 4, [&](Value *J) {
        Stmts L;
        ExprPtr Idx = storedElementSplit(
            L, T, div(ref(Lane), 4),
            add(SliceRow->clone(), add(mul(ref(Warp), 16), mul(rem(ref(J), 2), 8))),
            mul(rem(ref(Lane), 4), 2), 6,
            add(mul(ref(NIV), NInst), mul(div(ref(J), 2), 8)), ChunkElems, S.Stage);
        std::vector<ExprPtr> AccIdx;
        AccIdx.push_back(add(mul(add(mul(ref(MTV), NI), ref(NIV)), NInst / 2), mul(ref(J), 2)));
        std::vector<ExprPtr> TIdx;
        TIdx.push_back(std::move(Idx));
        std::vector<OpOperand> Operands;
        Operands.push_back(regionOperand(Frag, std::move(AccIdx), {2}));
        Operands.push_back(regionOperand(T.Tile, std::move(TIdx)));
        L.push_back(op("cuda.store_pair", std::move(Operands), AttributeList(), Op.getLoc()));
        return L;
      }));
      return NL;
    }));
    return ML;
  }));
  // 2. The warpgroup's threads wait for each other's pairs, each
  // warpgroup on its own barrier named by a constant (a barrier index in a
  // register makes ptxas reserve all 16 of the block's barriers).
  auto WarpgroupBarrier = [&](Stmts &Into) {
    for (int64_t G = 0; G != Threads / WarpgroupSize; ++G) {
      AttributeList A;
      A.set("threads", Attribute::getInt(WarpgroupSize));
      std::vector<OpOperand> Operands;
      Operands.push_back(exprOperand(lit(G + 1 + S.FirstBarrier)));
      Stmts Wait;
      Wait.push_back(op("cuda.bar_sync", std::move(Operands), std::move(A), Op.getLoc()));
      Into.push_back(ifThen(ex::binary(BinaryOp::Eq, ref(WG), lit(G)), std::move(Wait)));
    }
  };
  WarpgroupBarrier(Staged);
  // 3. Chunk q = i * 128 + t of a slice (t the thread in its warpgroup) is
  // row q / ChunksPerRow, chunks q % ChunksPerRow: a warp's 32 chunks are
  // whole rows' consecutive bytes.
  BufferValue *Chunk = nullptr;
  Staged.push_back(allocLocal("chunk", T.Tile->getDType(), ChunkElems, Chunk));
  Value *TW = let(Staged, "tw", rem(ref(Tid), WarpgroupSize));
  Staged.push_back(unroll("mt", MT, [&](Value *MTV) {
    Stmts ML;
    Value *Slice = let(ML, "slice_row", mul(add(mul(ref(WG), MT), ref(MTV)), InstM));
    ML.push_back(unroll("i", 64 * ChunksPerRow / WarpgroupSize, [&](Value *I) {
      Stmts L;
      Value *Q = let(L, "q", add(mul(ref(I), WarpgroupSize), ref(TW)));
      Value *R = let(L, "r", div(ref(Q), ChunksPerRow));
      Value *C = let(L, "c", mul(rem(ref(Q), ChunksPerRow), ChunkElems));
      ExprPtr Idx = storedElementSplit(L, T, rem(ref(R), 8),
                                       add(ref(Slice), ex::sub(ref(R), rem(ref(R), 8))),
                                       lit(0), 0, ref(C), ChunkElems, S.Stage);
      {
        std::vector<ExprPtr> TIdx;
        TIdx.push_back(std::move(Idx));
        std::vector<ExprPtr> CIdx;
        CIdx.push_back(lit(0));
        std::vector<OpOperand> Operands;
        Operands.push_back(regionOperand(T.Tile, std::move(TIdx)));
        Operands.push_back(regionOperand(Chunk, std::move(CIdx)));
        // Whole swizzled chunks of the tile: 16-byte aligned.
        AttributeList A;
        A.set("width", Attribute::getInt(ChunkElems));
        A.set("aligned", Attribute::getBool(true));
        L.push_back(op("cuda.vload", std::move(Operands), std::move(A), Op.getLoc()));
      }
      ExprPtr In;
      std::vector<ExprPtr> GIdx;
      for (unsigned D = 0; D != Rank; ++D) {
        ExprPtr X = Offset(D);
        if (D == RowDim)
          X = add(std::move(X), add(ref(Slice), ref(R)));
        else if (D == ColDim)
          X = add(std::move(X), ref(C));
        In = ex::land(std::move(In), ex::ge(X->clone(), lit(0)));
        In = ex::land(std::move(In), ex::lt(X->clone(), Dst.Buf->getShape()[D]->clone()));
        GIdx.push_back(std::move(X));
      }
      std::vector<ExprPtr> CIdx;
      CIdx.push_back(lit(0));
      std::vector<OpOperand> Operands;
      Operands.push_back(regionOperand(Chunk, std::move(CIdx)));
      Operands.push_back(regionOperand(Dst.Buf, std::move(GIdx)));
      // Aligned where %stage_ok holds: X's data, row length and column
      // offset are whole chunks.
      AttributeList A;
      A.set("width", Attribute::getInt(ChunkElems));
      A.set("aligned", Attribute::getBool(true));
      Stmts St;
      St.push_back(op("cuda.vstore", std::move(Operands), std::move(A), Op.getLoc()));
      L.push_back(ifThen(std::move(In), std::move(St)));
      return L;
    }));
    return ML;
  }));
  if (S.Refilled)
    WarpgroupBarrier(Staged);
  // Else the pairs straight to X.
  Stmts Direct = lowerCopyOut(Op, Frag, MT, NInst, NI, Dims, S.PredicatedFallback);
  assert(Direct.size() == 1 && "the copy out is one per-thread block");
  Body.push_back(ifElse(ref(StageOK), std::move(Staged),
                        unwrapPerThread(std::move(Direct))));
  Stmts Out;
  Out.push_back(perThread(std::move(Body)));
  return Out;
}

void WGMMABuilder::placeBuffers(
    KernelStmt &K, const llvm::DenseMap<const BufferValue *, int64_t> &RingElems,
    const llvm::DenseMap<const BufferValue *, int64_t> &LocalElems) {
  Stmts Rings, Rest;
  for (StmtPtr &S : K.getBodyMutable().Stmts) {
    auto *A = dyn_cast<AllocStmt>(S.get());
    if (!A) {
      Rest.push_back(std::move(S));
      continue;
    }
    BufferValue *Buf = A->getBuffer();
    if (auto It = RingElems.find(Buf); It != RingElems.end()) {
      Buf->getShapeMutable().clear();
      Buf->getShapeMutable().push_back(lit(It->second));
      A->getAttrsMutable() = AttributeList();
      Rings.push_back(std::move(S));
      continue;
    }
    if (auto It = LocalElems.find(Buf); It != LocalElems.end()) {
      Buf->setScope(MemScope::Local);
      Buf->getShapeMutable().clear();
      Buf->getShapeMutable().push_back(lit(It->second));
    }
    Rest.push_back(std::move(S));
  }
  for (StmtPtr &S : Rest)
    Rings.push_back(std::move(S));
  K.getBodyMutable().Stmts = std::move(Rings);
}

WGMMABuilder::Stmts WGMMABuilder::tmaLoadTile(const SharedTile &O, const OpStmt &Copy,
                                              const Value *Var, const Expr *Val,
                                              const Expr &Stage, BufferValue *Mbar,
                                              const Expr &Bar) {
  const Region &Src = Copy.getOperand("src").R;
  BufferValue *G = Src.Buf;
  unsigned Rank = G->getRank();
  int64_t E = getDTypeBits(O.Tile->getDType()) / 8, W = O.Swizzle;
  int64_t ColBlocks = O.Contig * E / W, BoxCols = W / E;
  int64_t BoxRows = std::min<int64_t>(O.Rows, MaxTmaBoxRows);
  int64_t RowBlocks = O.Rows / BoxRows;
  auto Offset = [&](unsigned D) {
    return Src.isWholeBuffer() ? lit(0) : substitute(*Src.Indices[D].Offset, Var, Val);
  };
  Stmts Out;
  std::vector<Value *> Lead;
  for (unsigned D = 0; D + 2 < Rank; ++D)
    Lead.push_back(let(Out, "t_idx", Offset(D)));
  Value *R0 = let(Out, "t_row0", Offset(Rank - 2));
  Value *C0 = let(Out, "t_col0", Offset(Rank - 1));
  auto Box = [&](ExprPtr CB, ExprPtr RB) {
    std::vector<OpOperand> Operands;
    std::vector<ExprPtr> Coords;
    if (Rank > 2) {
      for (Value *L : Lead)
        Coords.push_back(ref(L));
      Coords.push_back(lit(0));
      Coords.push_back(lit(0));
    }
    Operands.push_back(regionOperand(G, std::move(Coords)));
    Operands.push_back(exprOperand(add(ref(R0), ex::mul(RB->clone(), lit(BoxRows)))));
    Operands.push_back(exprOperand(add(ref(C0), ex::mul(CB->clone(), lit(BoxCols)))));
    std::vector<ExprPtr> Dst;
    Dst.push_back(add(add(mul(Stage.clone(), O.StageBytes / E),
                          ex::mul(std::move(CB), lit(O.Rows * W / E))),
                      ex::mul(std::move(RB), lit(BoxRows * W / E))));
    Operands.push_back(regionOperand(O.Tile, std::move(Dst)));
    std::vector<ExprPtr> BarIdx;
    BarIdx.push_back(Bar.clone());
    Operands.push_back(regionOperand(Mbar, std::move(BarIdx)));
    AttributeList Attrs;
    Attrs.set("box_rows", Attribute::getInt(BoxRows));
    Attrs.set("box_cols", Attribute::getInt(BoxCols));
    Attrs.set("swizzle", Attribute::getInt(W));
    Attrs.set("optional", Attribute::getBool(true));
    return op("cuda.tma_load", std::move(Operands), std::move(Attrs), Copy.getLoc());
  };
  // Boxes along a dimension with one block need no loop.
  auto Blocks = [&](llvm::StringRef Name, int64_t N,
                    llvm::function_ref<Stmts(ExprPtr)> Body) {
    if (N == 1)
      return Body(lit(0));
    Stmts L;
    L.push_back(unroll(Name, N, [&](Value *V) { return Body(ref(V)); }));
    return L;
  };
  for (StmtPtr &S : Blocks("cb", ColBlocks, [&](ExprPtr CB) {
         return Blocks("rb", RowBlocks, [&](ExprPtr RB) {
           Stmts L;
           L.push_back(Box(CB->clone(), std::move(RB)));
           return L;
         });
       }))
    Out.push_back(std::move(S));
  return Out;
}

StmtPtr WGMMABuilder::mbarrierOp(BufferValue *Mbar, llvm::StringRef Name,
                                 ExprPtr Index, ExprPtr Arg, int64_t TxBytes,
                                 bool PerWarp) {
  std::vector<OpOperand> Operands;
  std::vector<ExprPtr> Idx;
  Idx.push_back(std::move(Index));
  Operands.push_back(regionOperand(Mbar, std::move(Idx)));
  if (Arg)
    Operands.push_back(exprOperand(std::move(Arg)));
  AttributeList Attrs;
  if (TxBytes)
    Attrs.set("tx_bytes", Attribute::getInt(TxBytes));
  if (PerWarp)
    Attrs.set("per_warp", Attribute::getBool(true));
  return op(Name, std::move(Operands), std::move(Attrs));
}
