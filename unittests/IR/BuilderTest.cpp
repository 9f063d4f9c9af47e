//===- BuilderTest.cpp - Building Tile IR in C++ --------------------------===//
//
// Each reference kernel of examples/ built with the Builder verifies and
// prints exactly as the parsed file does, and is the same IR (types of every
// literal and expression included). Focused tests cover literal typing,
// else-if, regions, op attributes, insertion points and the assertions on
// misuse.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/Builder.h"
#include "IRDump.h"
#include "tile/IR/Parser.h"
#include "tile/IR/Printer.h"
#include "tile/IR/Specialize.h"
#include "tile/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <cmath>

using namespace tile;
using llvm::ArrayRef;
using llvm::StringRef;

namespace {

constexpr DType F16 = DType::F16, F32 = DType::F32;

std::string print(const Function &F) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printFunction(F, OS);
  return S;
}

class BuilderTest : public ::testing::Test {
protected:
  BuilderTest() : M(Ctx), B(M) {}

  /// Verifies the built module, which must hold one function.
  void expectVerifies() {
    std::string Errors;
    llvm::raw_string_ostream OS(Errors);
    DiagnosticEngine Diag(nullptr, &OS);
    EXPECT_TRUE(verifyModule(M, Diag)) << Errors << toString(M);
    ASSERT_EQ(M.getFunctions().size(), 1u);
  }

  /// Parses \p Text (which must verify) into the test's context.
  std::unique_ptr<Module> parse(StringRef Text) {
    std::string Errors;
    llvm::raw_string_ostream OS(Errors);
    DiagnosticEngine Diag(&SM, &OS);
    std::unique_ptr<Module> P = parseModuleString(Text, "input", SM, Ctx, Diag);
    EXPECT_TRUE(P) << Errors;
    if (P)
      EXPECT_TRUE(verifyModule(*P, Diag)) << Errors;
    return P;
  }

  /// The built function verifies, prints as function \p Name of
  /// examples/\p File and is the same IR.
  void expectMatchesExample(StringRef File, StringRef Name) {
    expectVerifies();
    std::string Errors;
    llvm::raw_string_ostream OS(Errors);
    DiagnosticEngine Diag(&SM, &OS);
    std::string Path = (TILE_SOURCE_DIR "/examples/" + File).str();
    std::unique_ptr<Module> Ref = parseSourceFile(Path, SM, Ctx, Diag);
    ASSERT_TRUE(Ref) << Errors;
    Function *RefF = Ref->lookupFunction(Name);
    ASSERT_TRUE(RefF) << Name.str() << " not in " << Path;
    // An example with tunable parameters in its default config.
    llvm::Expected<std::unique_ptr<Function>> Default =
        specializeFunction(*RefF, {});
    ASSERT_TRUE(bool(Default)) << llvm::toString(Default.takeError());
    RefF = Default->get();
    ASSERT_EQ(M.getFunctions().size(), 1u);
    const Function &Built = *M.getFunctions()[0];
    EXPECT_EQ(print(Built), print(*RefF));
    EXPECT_EQ(unittest::dumpTyped(Built), unittest::dumpTyped(*RefF));
  }

  /// The built module prints as \p Canonical, and parsing that text gives
  /// the same IR.
  void expectSameAsParsed(StringRef Canonical) {
    expectVerifies();
    EXPECT_EQ(toString(M), Canonical.str());
    std::unique_ptr<Module> P = parse(Canonical);
    ASSERT_TRUE(P);
    EXPECT_EQ(toString(*P), Canonical.str());
    EXPECT_EQ(unittest::dumpTyped(M), unittest::dumpTyped(*P));
  }

  TileContext Ctx;
  llvm::SourceMgr SM;
  Module M;
  Builder B;
};

//===----------------------------------------------------------------------===//
// The reference kernels
//===----------------------------------------------------------------------===//

TEST_F(BuilderTest, Gemm) {
  B.createFunction("gemm");
  BufferValue *A = B.addBufferParam("A", F16, {"M", "K"});
  BufferValue *Bm = B.addBufferParam("B", F16, {"K", "N"});
  BufferValue *C = B.addBufferParam("C", F16, {"M", "N"});
  KernelStmt *Kern = B.createKernel(
      {B.ceildiv(B.dim("N"), 128), B.ceildiv(B.dim("M"), 128)}, 128,
      {"bx", "by"}, [&](ArrayRef<Value *> Idx) {
        Value *Bx = Idx[0], *By = Idx[1];
        BufferValue *As = B.createShared("As", F16, {128, 32});
        BufferValue *Bs = B.createShared("Bs", F16, {32, 128});
        BufferValue *Cf = B.createFragment("Cf", F32, {128, 128});
        B.createClear(Cf);
        B.createFor(LoopKind::Pipelined, "k", 0, B.ceildiv(B.dim("K"), 32),
                    {{"stages", Attribute::getInt(3)}}, [&](Value *K) {
                      B.createCopy({A, {B.mul(By, 128), B.mul(K, 32)}}, As);
                      B.createCopy({Bm, {B.mul(K, 32), B.mul(Bx, 128)}}, Bs);
                      B.createGemm(As, Bs, Cf);
                    });
        B.createCopy(Cf, {C, {B.mul(By, 128), B.mul(Bx, 128)}});
      });
  // The example's SWIZZLE tunable (default 1: launch order).
  Kern->getAttrsMutable().set("raster_swizzle", Attribute::getInt(1));
  expectMatchesExample("gemm.tile", "gemm");
}

/// FlashAttention forward, and its causal variant, which differ in the key
/// loop's bound and in the mask.
void buildFlashAttention(Builder &B, bool Causal) {
  B.createFunction(Causal ? "flash_attention_causal" : "flash_attention");
  auto Tensor = [&](StringRef Name) {
    return B.addBufferParam(Name, F16, {"B", "H", "S", 128});
  };
  BufferValue *Q = Tensor("Q"), *K = Tensor("K"), *V = Tensor("V"),
              *O = Tensor("O");
  Value *Scale = B.addScalarParam("scale", F32);
  Value *S = B.dim("S");
  B.createKernel(
      {B.ceildiv(S, 64), B.dim("H"), B.dim("B")}, 128, {"bx", "by", "bz"},
      [&](ArrayRef<Value *> Idx) {
        Value *Bx = Idx[0], *By = Idx[1], *Bz = Idx[2];
        BufferValue *Qs = B.createShared("Qs", F16, {64, 128});
        BufferValue *Ks = B.createShared("Ks", F16, {64, 128});
        BufferValue *Vs = B.createShared("Vs", F16, {64, 128});
        BufferValue *Sc = B.createFragment("Sc", F32, {64, 64});
        BufferValue *P = B.createFragment("P", F16, {64, 64});
        BufferValue *Of = B.createFragment("Of", F32, {64, 128});
        BufferValue *Mx = B.createFragment("m", F32, {64});
        BufferValue *MPrev = B.createFragment("m_prev", F32, {64});
        BufferValue *L = B.createFragment("l", F32, {64});
        BufferValue *RowSum = B.createFragment("rowsum", F32, {64});
        BufferValue *Alpha = B.createFragment("alpha", F32, {64});
        Value *C2 = B.createLet("c2", B.mul(Scale, 1.4426950408889634));
        B.createCopy({Q, {Bz, By, B.mul(Bx, 64), 0}}, Qs);
        B.createClear(Of);
        B.createClear(L);
        B.createFill(Mx, B.neg(B.inf(F32)));
        ExprPtr Hi = B.ceildiv(S, 64);
        if (Causal)
          Hi = B.min(B.add(Bx, 1), std::move(Hi));
        B.createFor(
            LoopKind::Pipelined, "j", 0, std::move(Hi),
            {{"stages", Attribute::getInt(2)}}, [&](Value *J) {
              B.createCopy({K, {Bz, By, B.mul(J, 64), 0}}, Ks);
              GemmOptions QK;
              QK.TransposeB = true;
              QK.ClearAccum = true;
              B.createGemm(Qs, Ks, Sc, QK);
              B.createParallel({"i", "c"}, {64, 64}, [&](ArrayRef<Value *> IC) {
                Value *I = IC[0], *C = IC[1];
                ExprPtr InRange;
                if (Causal) {
                  Value *Row = B.createLet("q", B.add(B.mul(Bx, 64), I));
                  Value *Col = B.createLet("kv", B.add(B.mul(J, 64), C));
                  InRange = B.logicalAnd(B.le(Col, Row), B.lt(Col, S));
                } else {
                  InRange = B.lt(B.add(B.mul(J, 64), C), S);
                }
                B.createStore(Sc, {I, C},
                              B.select(std::move(InRange), B.load(Sc, {I, C}),
                                       B.neg(B.inf(F32))));
              });
              B.createCopy(Mx, MPrev);
              B.createReduce("max", Sc, Mx, /*Dim=*/1, /*Clear=*/false);
              B.createParallel("i", 64, [&](Value *I) {
                B.createStore(Alpha, {I},
                              B.exp2(B.mul(B.sub(B.load(MPrev, {I}), B.load(Mx, {I})),
                                           C2)));
              });
              B.createParallel({"i", "c"}, {64, 64}, [&](ArrayRef<Value *> IC) {
                B.createStore(Sc, {IC[0], IC[1]},
                              B.exp2(B.sub(B.mul(B.load(Sc, {IC[0], IC[1]}), C2),
                                           B.mul(B.load(Mx, {IC[0]}), C2))));
              });
              B.createReduce("sum", Sc, RowSum, /*Dim=*/1);
              B.createParallel("i", 64, [&](Value *I) {
                B.createStore(L, {I},
                              B.add(B.mul(B.load(L, {I}), B.load(Alpha, {I})),
                                    B.load(RowSum, {I})));
              });
              B.createParallel({"i", "d"}, {64, 128}, [&](ArrayRef<Value *> ID) {
                B.createStore(Of, {ID[0], ID[1]},
                              B.mul(B.load(Of, {ID[0], ID[1]}),
                                    B.load(Alpha, {ID[0]})));
              });
              B.createCopy(Sc, P);
              B.createCopy({V, {Bz, By, B.mul(J, 64), 0}}, Vs);
              B.createGemm(P, Vs, Of);
            });
        B.createParallel("i", 64, [&](Value *I) {
          B.createStore(L, {I}, B.div(1.0, B.load(L, {I})));
        });
        B.createParallel({"i", "d"}, {64, 128}, [&](ArrayRef<Value *> ID) {
          B.createStore(Of, {ID[0], ID[1]},
                        B.mul(B.load(Of, {ID[0], ID[1]}), B.load(L, {ID[0]})));
        });
        B.createCopy(Of, {O, {Bz, By, B.mul(Bx, 64), 0}});
      });
}

TEST_F(BuilderTest, FlashAttention) {
  buildFlashAttention(B, /*Causal=*/false);
  expectMatchesExample("flash_attention.tile", "flash_attention");
}

TEST_F(BuilderTest, FlashAttentionCausal) {
  buildFlashAttention(B, /*Causal=*/true);
  expectMatchesExample("flash_attention.tile", "flash_attention_causal");
}

TEST_F(BuilderTest, RMSNorm) {
  B.createFunction("rmsnorm");
  BufferValue *X = B.addBufferParam("X", F16, {"M", "N"});
  BufferValue *W = B.addBufferParam("W", F16, {"N"});
  BufferValue *Y = B.addBufferParam("Y", F16, {"M", "N"});
  Value *Eps = B.addScalarParam("eps", F32);
  Value *N = B.dim("N");
  B.createKernel({B.dim("M")}, 128, {"bx"}, [&](ArrayRef<Value *> Idx) {
    Value *Bx = Idx[0];
    BufferValue *Xf = B.createFragment("x", F32, {1, 1024});
    BufferValue *Sq = B.createFragment("sq", F32, {1, 1024});
    BufferValue *Wf = B.createFragment("w", F32, {1024});
    BufferValue *Acc = B.createFragment("acc", F32, {1});
    B.createClear(Acc);
    B.createFor(LoopKind::Serial, "t", 0, B.ceildiv(N, 1024), [&](Value *T) {
      B.createCopy({X, {Bx, B.mul(T, 1024)}}, Xf);
      B.createParallel({"i", "j"}, {1, 1024}, [&](ArrayRef<Value *> IJ) {
        B.createStore(Sq, {IJ[0], IJ[1]},
                      B.mul(B.load(Xf, {IJ[0], IJ[1]}),
                            B.load(Xf, {IJ[0], IJ[1]})));
      });
      B.createReduce("sum", Sq, Acc, /*Dim=*/1, /*Clear=*/false);
    });
    B.createParallel("i", 1, [&](Value *I) {
      B.createStore(Acc, {I},
                    B.rsqrt(B.add(B.div(B.load(Acc, {I}), B.cast(F32, N)),
                                  Eps)));
    });
    B.createFor(LoopKind::Serial, "t", 0, B.ceildiv(N, 1024), [&](Value *T) {
      B.createCopy({X, {Bx, B.mul(T, 1024)}}, Xf);
      B.createCopy({W, {B.mul(T, 1024)}}, Wf);
      B.createParallel({"i", "j"}, {1, 1024}, [&](ArrayRef<Value *> IJ) {
        B.createStore(Xf, {IJ[0], IJ[1]},
                      B.mul(B.mul(B.load(Xf, {IJ[0], IJ[1]}),
                                  B.load(Acc, {IJ[0]})),
                            B.load(Wf, {IJ[1]})));
      });
      B.createCopy(Xf, {Y, {Bx, B.mul(T, 1024)}});
    });
  });
  expectMatchesExample("rmsnorm.tile", "rmsnorm");
}

TEST_F(BuilderTest, Softmax) {
  B.createFunction("softmax");
  BufferValue *X = B.addBufferParam("X", F16, {"M", "N"});
  BufferValue *Y = B.addBufferParam("Y", F16, {"M", "N"});
  Value *N = B.dim("N");
  B.createKernel({B.dim("M")}, 128, {"bx"}, [&](ArrayRef<Value *> Idx) {
    Value *Bx = Idx[0];
    BufferValue *Xf = B.createFragment("x", F32, {1, 1024});
    BufferValue *Mx = B.createFragment("m", F32, {1});
    BufferValue *Mt = B.createFragment("mt", F32, {1});
    BufferValue *Sum = B.createFragment("s", F32, {1});
    BufferValue *St = B.createFragment("st", F32, {1});
    B.createFill(Mx, B.neg(B.inf(F32)));
    B.createClear(Sum);
    B.createFor(LoopKind::Serial, "t", 0, B.ceildiv(N, 1024), [&](Value *T) {
      B.createCopy({X, {Bx, B.mul(T, 1024)}}, Xf);
      B.createParallel({"i", "j"}, {1, 1024}, [&](ArrayRef<Value *> IJ) {
        B.createStore(Xf, {IJ[0], IJ[1]},
                      B.select(B.lt(B.add(B.mul(T, 1024), IJ[1]), N),
                               B.load(Xf, {IJ[0], IJ[1]}), B.neg(B.inf(F32))));
      });
      B.createReduce("max", Xf, Mt, /*Dim=*/1);
      B.createParallel("i", 1, [&](Value *I) {
        B.createStore(Mt, {I}, B.max(B.load(Mx, {I}), B.load(Mt, {I})));
      });
      B.createParallel({"i", "j"}, {1, 1024}, [&](ArrayRef<Value *> IJ) {
        B.createStore(Xf, {IJ[0], IJ[1]},
                      B.exp(B.sub(B.load(Xf, {IJ[0], IJ[1]}),
                                  B.load(Mt, {IJ[0]}))));
      });
      B.createReduce("sum", Xf, St, /*Dim=*/1);
      B.createParallel("i", 1, [&](Value *I) {
        B.createStore(Sum, {I},
                      B.add(B.mul(B.load(Sum, {I}),
                                  B.exp(B.sub(B.load(Mx, {I}),
                                              B.load(Mt, {I})))),
                            B.load(St, {I})));
        B.createStore(Mx, {I}, B.load(Mt, {I}));
      });
    });
    B.createFor(LoopKind::Serial, "t", 0, B.ceildiv(N, 1024), [&](Value *T) {
      B.createCopy({X, {Bx, B.mul(T, 1024)}}, Xf);
      B.createParallel({"i", "j"}, {1, 1024}, [&](ArrayRef<Value *> IJ) {
        B.createStore(Xf, {IJ[0], IJ[1]},
                      B.div(B.exp(B.sub(B.load(Xf, {IJ[0], IJ[1]}),
                                        B.load(Mx, {IJ[0]}))),
                            B.load(Sum, {IJ[0]})));
      });
      B.createCopy(Xf, {Y, {Bx, B.mul(T, 1024)}});
    });
  });
  expectMatchesExample("softmax.tile", "softmax");
}

TEST_F(BuilderTest, ElementwiseAdd) {
  B.createFunction("add");
  BufferValue *A = B.addBufferParam("A", F32, {"N"});
  BufferValue *Bv = B.addBufferParam("B", F32, {"N"});
  BufferValue *C = B.addBufferParam("C", F32, {"N"});
  B.createKernel({B.ceildiv(B.dim("N"), 1024)}, 256, {"bx"},
                 [&](ArrayRef<Value *> Idx) {
                   Value *Bx = Idx[0];
                   BufferValue *Af = B.createFragment("a", F32, {1024});
                   BufferValue *Bf = B.createFragment("b", F32, {1024});
                   B.createCopy({A, {B.mul(Bx, 1024)}}, Af);
                   B.createCopy({Bv, {B.mul(Bx, 1024)}}, Bf);
                   B.createParallel("i", 1024, [&](Value *I) {
                     B.createStore(Af, {I},
                                   B.add(B.load(Af, {I}), B.load(Bf, {I})));
                   });
                   B.createCopy(Af, {C, {B.mul(Bx, 1024)}});
                 });
  expectMatchesExample("elementwise_add.tile", "add");
}

TEST_F(BuilderTest, Gemv) {
  B.createFunction("gemv");
  BufferValue *A = B.addBufferParam("A", F16, {"M", "K"});
  BufferValue *X = B.addBufferParam("x", F16, {"K"});
  BufferValue *Y = B.addBufferParam("y", F16, {"M"});
  B.createKernel(
      {B.ceildiv(B.dim("M"), 64)}, 128, {"bx"}, [&](ArrayRef<Value *> Idx) {
        Value *Bx = Idx[0];
        BufferValue *Af = B.createFragment("a", F16, {64, 256});
        BufferValue *Xs = B.createFragment("xs", F32, {256});
        BufferValue *Prod = B.createFragment("prod", F32, {64, 256});
        BufferValue *Acc = B.createFragment("acc", F32, {64});
        B.createClear(Acc);
        B.createFor(LoopKind::Pipelined, "k", 0, B.ceildiv(B.dim("K"), 256),
                    {{"stages", Attribute::getInt(2)}}, [&](Value *K) {
                      B.createCopy({A, {B.mul(Bx, 64), B.mul(K, 256)}}, Af);
                      B.createCopy({X, {B.mul(K, 256)}}, Xs);
                      B.createParallel(
                          {"i", "j"}, {64, 256}, [&](ArrayRef<Value *> IJ) {
                            B.createStore(
                                Prod, {IJ[0], IJ[1]},
                                B.mul(B.cast(F32, B.load(Af, {IJ[0], IJ[1]})),
                                      B.load(Xs, {IJ[1]})));
                          });
                      B.createReduce("sum", Prod, Acc, /*Dim=*/1,
                                     /*Clear=*/false);
                    });
        B.createCopy(Acc, {Y, {B.mul(Bx, 64)}});
      });
  expectMatchesExample("gemv.tile", "gemv");
}

TEST_F(BuilderTest, Transpose) {
  B.createFunction("transpose");
  BufferValue *A = B.addBufferParam("A", F32, {"M", "N"});
  BufferValue *Bt = B.addBufferParam("B", F32, {"N", "M"});
  B.createKernel(
      {B.ceildiv(B.dim("N"), 64), B.ceildiv(B.dim("M"), 64)}, 256,
      {"bx", "by"}, [&](ArrayRef<Value *> Idx) {
        Value *Bx = Idx[0], *By = Idx[1];
        BufferValue *Tile = B.createShared(
            "tile", F32, {64, 64},
            {{"layout", Attribute::getCall("padded", {Attribute::getInt(1)})}});
        BufferValue *T = B.createFragment("t", F32, {64, 64});
        B.createCopy({A, {B.mul(By, 64), B.mul(Bx, 64)}}, Tile);
        B.createParallel({"i", "j"}, {64, 64}, [&](ArrayRef<Value *> IJ) {
          B.createStore(T, {IJ[1], IJ[0]}, B.load(Tile, {IJ[0], IJ[1]}));
        });
        B.createCopy(T, {Bt, {B.mul(Bx, 64), B.mul(By, 64)}});
      });
  expectMatchesExample("transpose.tile", "transpose");
}

//===----------------------------------------------------------------------===//
// Literal typing
//===----------------------------------------------------------------------===//

/// A kernel over \p Params whose body \p Body builds.
void buildKernelFunction(Builder &B,
                         llvm::function_ref<void()> DeclareParams,
                         llvm::function_ref<void(Value *Bx)> Body) {
  B.createFunction("f");
  DeclareParams();
  B.createKernel({1}, 128, {"bx"},
                 [&](ArrayRef<Value *> Idx) { Body(Idx[0]); });
}

TEST_F(BuilderTest, LiteralsTakeTheTypeTheirContextAsks) {
  BufferValue *H = nullptr, *L = nullptr, *Flag = nullptr;
  Value *N64 = nullptr;
  buildKernelFunction(
      B,
      [&] {
        H = B.addBufferParam("h", F16, {8});
        L = B.addBufferParam("l", DType::I64, {8});
        Flag = B.addBufferParam("flag", DType::I1, {8});
        N64 = B.addScalarParam("n", DType::I64);
      },
      [&](Value *Bx) {
        BufferValue *V = B.createVar("v", F32);
        // A stored literal takes the element type: 1 becomes 1.0 (f32).
        B.createAssign(V, 1);
        B.createStore(H, {0}, 0.5);
        B.createStore(L, {1}, -3);
        // Binary operators: the literal takes the other operand's type.
        B.createStore(L, {2}, B.add(N64, 1));
        B.createStore(H, {3}, B.mul(B.load(H, {3}), 2));
        // Comparisons and logical operators give i1; 1 beside an i1 is true.
        B.createStore(Flag, {4},
                      B.logicalOr(B.lt(N64, 4), B.eq(B.load(Flag, {5}), 1)));
        // Unary intrinsics other than abs make an integer literal f32.
        B.createAssign(V, B.add(B.exp(1), B.cast(F32, B.abs(-3))));
        // An integer and a float literal together are both f32.
        B.createAssign(V, B.add(1, 2.5));
        // select: the condition becomes i1, the arms are unified.
        B.createAssign(V, B.select(1, V, 0));
        // cast<i64>(1) types the literal i64; cast<f32>(1) keeps it i32.
        B.createStore(L, {6}, B.add(B.cast(DType::I64, 1), N64));
        B.createAssign(V, B.cast(F32, 1));
        // A let keeps the default types.
        Value *I = B.createLet("i", 5);
        Value *X = B.createLet("x", 1e-06);
        B.createStore(L, {7}, B.cast(DType::I64, B.add(I, Bx)));
        B.createAssign(V, B.mul(X, -0.5));
        // Negation of a literal is not a negative literal.
        B.createStore(L, {0}, B.cast(DType::I64, B.sub(Bx, B.neg(3))));
        B.createStore(L, {1}, B.sub(N64, -3));
        // Typed literals.
        B.createStore(L, {2}, B.getInt(7, DType::I64));
        B.createStore(Flag, {3}, B.logicalNot(0));
        B.createStore(Flag, {4}, true);
      });
  EXPECT_EQ(M.getFunctions()[0]->getBody().Stmts.size(), 1u);
  expectSameAsParsed(
      "func @f(%h: f16[8], %l: i64[8], %flag: i1[8], %n: i64) {\n"
      "  kernel grid(1) threads(128) (%bx) {\n"
      "    %v = alloc var f32\n"
      "    %v = 1.0\n"
      "    %h[0] = 0.5\n"
      "    %l[1] = -3\n"
      "    %l[2] = %n + 1\n"
      "    %h[3] = %h[3] * 2.0\n"
      "    %flag[4] = %n < 4 || %flag[5] == true\n"
      "    %v = exp(1.0) + cast<f32>(abs(-3))\n"
      "    %v = 1.0 + 2.5\n"
      "    %v = select(true, %v, 0.0)\n"
      "    %l[6] = cast<i64>(1) + %n\n"
      "    %v = cast<f32>(1)\n"
      "    let %i = 5\n"
      "    let %x = 1e-06\n"
      "    %l[7] = cast<i64>(%i + %bx)\n"
      "    %v = %x * -0.5\n"
      "    %l[0] = cast<i64>(%bx - -(3))\n"
      "    %l[1] = %n - -3\n"
      "    %l[2] = 7\n"
      "    %flag[3] = !(false)\n"
      "    %flag[4] = true\n"
      "  }\n"
      "}\n");
  // Spot-check the types the text does not show.
  const auto &K = llvm::cast<KernelStmt>(*M.getFunctions()[0]->getBody().Stmts[0]);
  auto StoredValue = [&](unsigned I) {
    return llvm::cast<StoreStmt>(*K.getBody().Stmts[I]).getValue();
  };
  EXPECT_EQ(StoredValue(2)->getDType(), F16);
  EXPECT_EQ(StoredValue(3)->getDType(), DType::I64);
  const auto *Add = llvm::cast<BinaryExpr>(StoredValue(4));
  EXPECT_EQ(Add->getRHS()->getDType(), DType::I64);
  const auto *Cast = llvm::cast<CastExpr>(StoredValue(11));
  EXPECT_EQ(Cast->getOperand()->getDType(), DType::I32);
}

TEST_F(BuilderTest, LoopBoundsAndStepTakeTheBoundsType) {
  BufferValue *L = nullptr;
  Value *N = nullptr;
  buildKernelFunction(
      B,
      [&] {
        L = B.addBufferParam("l", DType::I64, {8});
        N = B.addScalarParam("n", DType::I64);
      },
      [&](Value *Bx) {
        // serial(0, %n, step = 2) with an i64 %n counts in i64.
        B.createFor(LoopKind::Serial, "i", 0, N, 2, {}, [&](Value *I) {
          EXPECT_EQ(I->getDType(), DType::I64);
          B.createStore(L, {0}, I);
        });
        B.createFor(LoopKind::Unroll, "j", 0, 4, [&](Value *J) {
          EXPECT_EQ(J->getDType(), DType::I32);
        });
      });
  expectSameAsParsed("func @f(%l: i64[8], %n: i64) {\n"
                     "  kernel grid(1) threads(128) (%bx) {\n"
                     "    for %i in serial(0, %n, step = 2) {\n"
                     "      %l[0] = %i\n"
                     "    }\n"
                     "    for %j in unroll(0, 4) {\n"
                     "    }\n"
                     "  }\n"
                     "}\n");
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

TEST_F(BuilderTest, EveryStatementAndLoopKind) {
  B.createFunction("f", {{"pass.unroll", Attribute::getBool(false)}});
  BufferValue *A = B.addBufferParam("A", F32, {"M", 64}, {"ldA", 1});
  Value *Alpha = B.addScalarParam("alpha", F32);
  Value *Mdim = B.dim("M");
  BufferValue *Ws = B.createAlloc("ws", MemScope::Global, F32, {Mdim});
  B.createKernel({B.ceildiv(Mdim, 64)}, 128, {"bx"}, "tx",
                 [&](ArrayRef<Value *> Idx, Value *Tx) {
                   BufferValue *Sm = B.createShared(
                       "s", F32, {64},
                       {{"layout", Attribute::getCall(
                                       "swizzle", {Attribute::getInt(64)})}});
                   BufferValue *Loc = B.createLocal("r", F32, {4});
                   BufferValue *Acc = B.createVar("acc", F32);
                   B.createAssign(Acc, 0);
                   B.createFor(LoopKind::Unroll, "u", 0, 4, [&](Value *U) {
                     B.createStore(Loc, {U}, B.load(A, {Idx[0], U}));
                   });
                   B.createFor(LoopKind::Serial, "s2", 0, 64, 2, {},
                               [&](Value *S2) {
                                 B.createAssign(Acc, B.add(Acc, B.load(Sm, {S2})));
                               });
                   B.createStore(Loc, {0}, B.cast(F32, Tx));
                   B.createIf(
                       B.eq(Idx[0], 0),
                       [&] { B.createStore(Ws, {Idx[0]}, B.mul(Acc, Alpha)); },
                       [&] {
                         B.createIf(B.lt(Idx[0], 32), [&] { B.createBarrier(); },
                                    [&] { B.createAssign(Acc, 1); });
                       });
                   B.createIf(B.gt(Tx, 64), [&] { B.createAssign(Acc, 2); });
                 });
  KernelStmt *K = llvm::cast<KernelStmt>(
      M.getFunctions()[0]->getBodyMutable().Stmts[1].get());
  K->getAttrsMutable().set("raster_swizzle", Attribute::getInt(8));
  expectSameAsParsed(
      "func @f(%A: f32[M, 64] strides(ldA, 1), %alpha: f32) attributes "
      "{pass.unroll = false} {\n"
      "  %ws = alloc global f32[M]\n"
      "  kernel grid(ceildiv(M, 64)) threads(128) (%bx) thread(%tx) "
      "attributes {raster_swizzle = 8} {\n"
      "    %s = alloc shared f32[64] {layout = swizzle(64)}\n"
      "    %r = alloc local f32[4]\n"
      "    %acc = alloc var f32\n"
      "    %acc = 0.0\n"
      "    for %u in unroll(0, 4) {\n"
      "      %r[%u] = %A[%bx, %u]\n"
      "    }\n"
      "    for %s2 in serial(0, 64, step = 2) {\n"
      "      %acc = %acc + %s[%s2]\n"
      "    }\n"
      "    %r[0] = cast<f32>(%tx)\n"
      "    if %bx == 0 {\n"
      "      %ws[%bx] = %acc * %alpha\n"
      "    } else if %bx < 32 {\n"
      "      barrier\n"
      "    } else {\n"
      "      %acc = 1.0\n"
      "    }\n"
      "    if %tx > 64 {\n"
      "      %acc = 2.0\n"
      "    }\n"
      "  }\n"
      "}\n");
}

TEST_F(BuilderTest, PipelinedLoopOptionsAndStep) {
  BufferValue *A = nullptr;
  buildKernelFunction(
      B, [&] { A = B.addBufferParam("A", F32, {"N"}); },
      [&](Value *Bx) {
        BufferValue *S = B.createShared("s", F32, {32});
        BufferValue *F = B.createFragment("f", F32, {32});
        B.createFor(LoopKind::Pipelined, "k", 1, B.dim("N"), 32,
                    {{"stages", Attribute::getInt(2)},
                     {"order", Attribute::getList({Attribute::getInt(1),
                                                   Attribute::getInt(0)})},
                     {"stage", Attribute::getList({Attribute::getInt(0),
                                                   Attribute::getInt(1)})}},
                    [&](Value *K) {
                      B.createCopy({A, {K}}, S);
                      B.createCopy(S, F);
                    });
      });
  expectSameAsParsed(
      "func @f(%A: f32[N]) {\n"
      "  kernel grid(1) threads(128) (%bx) {\n"
      "    %s = alloc shared f32[32]\n"
      "    %f = alloc fragment f32[32]\n"
      "    for %k in pipelined(1, N, step = 32, stages = 2, order = [1, 0], "
      "stage = [0, 1]) {\n"
      "      copy %A[%k] -> %s\n"
      "      copy %s -> %f\n"
      "    }\n"
      "  }\n"
      "}\n");
}

TEST_F(BuilderTest, ElseIfIsAnElseBlockHoldingOneIf) {
  buildKernelFunction(
      B, [] {},
      [&](Value *Bx) {
        BufferValue *V = B.createVar("v", DType::I32);
        B.createIf(
            B.eq(Bx, 0), [&] { B.createAssign(V, 1); },
            [&] {
              B.createIf(
                  B.eq(Bx, 1), [&] { B.createAssign(V, 2); },
                  [&] {
                    B.createIf(B.eq(Bx, 2), [&] { B.createAssign(V, 3); });
                  });
            });
        // Two statements in the else block: no else-if.
        B.createIf(
            B.ne(Bx, 0), [] {},
            [&] {
              B.createAssign(V, 4);
              B.createIf(B.eq(Bx, 1), [] {});
            });
      });
  expectSameAsParsed("func @f() {\n"
                     "  kernel grid(1) threads(128) (%bx) {\n"
                     "    %v = alloc var i32\n"
                     "    if %bx == 0 {\n"
                     "      %v = 1\n"
                     "    } else if %bx == 1 {\n"
                     "      %v = 2\n"
                     "    } else if %bx == 2 {\n"
                     "      %v = 3\n"
                     "    }\n"
                     "    if %bx != 0 {\n"
                     "    } else {\n"
                     "      %v = 4\n"
                     "      if %bx == 1 {\n"
                     "      }\n"
                     "    }\n"
                     "  }\n"
                     "}\n");
}

//===----------------------------------------------------------------------===//
// Tile ops and regions
//===----------------------------------------------------------------------===//

TEST_F(BuilderTest, RegionsWholeOffsetsAndExtents) {
  BufferValue *A = nullptr;
  buildKernelFunction(
      B, [&] { A = B.addBufferParam("A", F16, {"M", "K"}); },
      [&](Value *Bx) {
        BufferValue *S = B.createShared("s", F16, {64, 32});
        BufferValue *T = B.createShared("t", F16, {64, 64});
        BufferValue *U = B.createShared("u", F16, {64});
        // Offsets only: extents from the other side.
        B.createCopy(Builder::region(A, {B.mul(Bx, 64), 0}), S);
        // Explicit extents on every index.
        B.createCopy({A, {B.mul(Bx, 64), 0}, {64, 32}},
                     {T, {0, 32}, {64, 32}});
        // Mixed: the second extent left out.
        B.createCopy({A, {0, 0}, {64, {}}}, U);
      });
  expectSameAsParsed(
      "func @f(%A: f16[M, K]) {\n"
      "  kernel grid(1) threads(128) (%bx) {\n"
      "    %s = alloc shared f16[64, 32]\n"
      "    %t = alloc shared f16[64, 64]\n"
      "    %u = alloc shared f16[64]\n"
      "    copy %A[%bx * 64, 0] -> %s\n"
      "    copy %A[%bx * 64 : 64, 0 : 32] -> %t[0 : 64, 32 : 32]\n"
      "    copy %A[0 : 64, 0] -> %u\n"
      "  }\n"
      "}\n");
}

TEST_F(BuilderTest, EveryOpByNameAndTyped) {
  BufferValue *G = nullptr;
  buildKernelFunction(
      B, [&] { G = B.addBufferParam("G", F32, {64, 64}); },
      [&](Value *Bx) {
        BufferValue *As = B.createShared("As", F16, {64, 32});
        BufferValue *Bs = B.createShared("Bs", F16, {64, 32});
        BufferValue *C = B.createFragment("C", F32, {64, 64});
        BufferValue *R = B.createFragment("r", F32, {64});
        // Attributes given out of order are stored in declared order.
        B.createOp("gemm", {As, Bs, C},
                   {{"clear_accum", Attribute::getBool(true)},
                    {"policy", Attribute::getIdent("full_row")},
                    {"transpose_b", Attribute::getBool(true)}});
        GemmOptions O;
        O.TransposeB = true;
        O.Policy = "full_col";
        B.createGemm(As, Bs, C, O);
        B.createOp("fill", {C, 0.5});
        B.createFill(R, -1);
        B.createOp("clear", {R});
        B.createOp("reduce", {C, R},
                   {{"dim", Attribute::getInt(1)},
                    {"kind", Attribute::getIdent("absmax")}});
        B.createReduce("abssum", C, R, 1, /*Clear=*/false);
        B.createReduce("min", C, R, 0, /*Clear=*/true);
        B.createOp("cumsum", {C, C}, {{"reverse", Attribute::getBool(true)}});
        B.createCumsum(C, C, /*Dim=*/1, /*Reverse=*/false);
        B.createOp("atomic", {C, G}, {{"kind", Attribute::getIdent("add")}});
        B.createAtomic("max", C, G);
        B.createParallel({"i", "j"}, {64, 64}, [&](ArrayRef<Value *> IJ) {
          B.createOp("atomic_elem", {RegionArg(G, {IJ[0], IJ[1]}),
                                     B.load(C, {IJ[0], IJ[1]})},
                     {{"kind", Attribute::getIdent("min")}});
          B.createAtomicElem("add", {G, {IJ[0], IJ[1]}}, 1.0);
        });
        B.createOp("barrier", {});
        B.createBarrier();
      });
  expectSameAsParsed(
      "func @f(%G: f32[64, 64]) {\n"
      "  kernel grid(1) threads(128) (%bx) {\n"
      "    %As = alloc shared f16[64, 32]\n"
      "    %Bs = alloc shared f16[64, 32]\n"
      "    %C = alloc fragment f32[64, 64]\n"
      "    %r = alloc fragment f32[64]\n"
      "    gemm %As, %Bs -> %C {transpose_b = true, policy = full_row, "
      "clear_accum = true}\n"
      "    gemm %As, %Bs -> %C {transpose_b = true, policy = full_col}\n"
      "    fill %C, 0.5\n"
      "    fill %r, -1\n"
      "    clear %r\n"
      "    reduce absmax %C -> %r {dim = 1}\n"
      "    reduce abssum %C -> %r {dim = 1, clear = false}\n"
      "    reduce min %C -> %r {dim = 0}\n"
      "    cumsum %C -> %C {reverse = true}\n"
      "    cumsum %C -> %C {dim = 1}\n"
      "    atomic add %C -> %G\n"
      "    atomic max %C -> %G\n"
      "    for %i, %j in parallel(64, 64) {\n"
      "      atomic_elem min %G[%i, %j], %C[%i, %j]\n"
      "      atomic_elem add %G[%i, %j], 1.0\n"
      "    }\n"
      "    barrier\n"
      "    barrier\n"
      "  }\n"
      "}\n");
  const auto &K = llvm::cast<KernelStmt>(*M.getFunctions()[0]->getBody().Stmts[0]);
  const auto &Gemm = llvm::cast<OpStmt>(*K.getBody().Stmts[4]);
  std::vector<std::string> Names;
  for (const NamedAttribute &A : Gemm.getAttrs())
    Names.push_back(A.Name);
  EXPECT_EQ(Names,
            (std::vector<std::string>{"transpose_b", "policy", "clear_accum"}));
  // The typed helper sets only what differs from the declared default.
  const auto &Reduce = llvm::cast<OpStmt>(*K.getBody().Stmts[11]);
  EXPECT_EQ(Reduce.getAttrs().size(), 2u);
  EXPECT_FALSE(Reduce.getAttrs().get("clear"));
}

TEST_F(BuilderTest, ExplicitDefaultAttributesAreKeptButNotPrinted) {
  buildKernelFunction(
      B, [] {},
      [&](Value *Bx) {
        BufferValue *As = B.createShared("As", F16, {16, 16});
        BufferValue *C = B.createFragment("C", F32, {16, 16});
        B.createOp("gemm", {As, As, C},
                   {{"policy", Attribute::getIdent("square")},
                    {"transpose_a", Attribute::getBool(false)}});
      });
  const auto &K = llvm::cast<KernelStmt>(*M.getFunctions()[0]->getBody().Stmts[0]);
  const auto &Gemm = llvm::cast<OpStmt>(*K.getBody().Stmts[2]);
  ASSERT_EQ(Gemm.getAttrs().size(), 2u);
  EXPECT_EQ(Gemm.getAttrs().begin()->Name, "transpose_a");
  // As the parser keeps `{policy = square, transpose_a = false}` when written.
  expectVerifies();
  std::unique_ptr<Module> P = parse(
      "func @f() {\n"
      "  kernel grid(1) threads(128) (%bx) {\n"
      "    %As = alloc shared f16[16, 16]\n"
      "    %C = alloc fragment f32[16, 16]\n"
      "    gemm %As, %As -> %C {policy = square, transpose_a = false}\n"
      "  }\n"
      "}\n");
  ASSERT_TRUE(P);
  EXPECT_EQ(unittest::dumpTyped(M), unittest::dumpTyped(*P));
  EXPECT_EQ(toString(M), "func @f() {\n"
                         "  kernel grid(1) threads(128) (%bx) {\n"
                         "    %As = alloc shared f16[16, 16]\n"
                         "    %C = alloc fragment f32[16, 16]\n"
                         "    gemm %As, %As -> %C\n"
                         "  }\n"
                         "}\n");
}

//===----------------------------------------------------------------------===//
// Insertion points
//===----------------------------------------------------------------------===//

TEST_F(BuilderTest, InsertionPoints) {
  B.createFunction("f");
  BufferValue *A = B.addBufferParam("A", F32, {16});
  // A kernel without a body callback: move the insertion point into it.
  KernelStmt *K = B.createKernel({1}, 32, {"bx"});
  Block *FuncBody = B.getInsertionBlock();
  EXPECT_EQ(FuncBody, &M.getFunctions()[0]->getBodyMutable());
  B.setInsertionPointToEnd(K->getBodyMutable());
  BufferValue *V = B.createVar("v", F32);
  StoreStmt *Last = B.createAssign(V, 3);
  // Before the last statement.
  B.setInsertionPointBefore(*Last);
  StoreStmt *First = B.createAssign(V, 1);
  // Insertion continues after what was inserted, before Last.
  B.createAssign(V, 2);
  // At the start of the block.
  B.setInsertionPointToStart(K->getBodyMutable());
  B.createAlloc("w", MemScope::Var, DType::I32, {});
  // After a statement.
  B.setInsertionPointAfter(*First);
  B.createAssign(V, 1.5);
  {
    Builder::InsertionGuard G(B);
    ForStmt *F = B.createParallel({"i"}, {16});
    B.setInsertionPointToEnd(F->getBodyMutable());
    B.createStore(A, {F->getDims()[0].Var.get()}, V);
  }
  // The guard restored the point: after the loop, before `%v = 2.0`.
  B.createAssign(V, 1.75);
  // buildIn is a guard plus a block.
  IfStmt *I = B.createIf(true);
  B.buildIn(I->getThenMutable(), [&] { B.createAssign(V, 9); });
  B.setInsertionPointToEnd(K->getBodyMutable());
  B.createAssign(V, 4);
  expectSameAsParsed("func @f(%A: f32[16]) {\n"
                     "  kernel grid(1) threads(32) (%bx) {\n"
                     "    %w = alloc var i32\n"
                     "    %v = alloc var f32\n"
                     "    %v = 1.0\n"
                     "    %v = 1.5\n"
                     "    for %i in parallel(16) {\n"
                     "      %A[%i] = %v\n"
                     "    }\n"
                     "    %v = 1.75\n"
                     "    if true {\n"
                     "      %v = 9.0\n"
                     "    }\n"
                     "    %v = 2.0\n"
                     "    %v = 3.0\n"
                     "    %v = 4.0\n"
                     "  }\n"
                     "}\n");
}

TEST_F(BuilderTest, DetachedBlockThenInsert) {
  B.createFunction("f");
  KernelStmt *K = B.createKernel({1}, 32, {"bx"});
  Value *Bx = K->getBlockIndices()[0].get();
  // A block not (yet) in the module: names are checked within it only.
  Block Body;
  B.setInsertionPointToEnd(Body);
  B.createLet("x", B.add(Bx, 1));
  B.createLet("y", B.mul(Bx, 2));
  // insert() checks names and uses again where the statements land.
  B.setInsertionPointToEnd(K->getBodyMutable());
  for (StmtPtr &S : Body.Stmts)
    B.insert(std::move(S));
  expectSameAsParsed("func @f() {\n"
                     "  kernel grid(1) threads(32) (%bx) {\n"
                     "    let %x = %bx + 1\n"
                     "    let %y = %bx * 2\n"
                     "  }\n"
                     "}\n");
}

TEST_F(BuilderTest, SiblingScopesMayReuseNames) {
  buildKernelFunction(
      B, [] {},
      [&](Value *Bx) {
        for (int Round = 0; Round != 2; ++Round)
          B.createFor(LoopKind::Serial, "i", 0, 4, [&](Value *I) {
            B.createLet("x", B.add(I, Bx));
          });
        B.createIf(true, [&] { B.createLet("x", 1); },
                   [&] { B.createLet("x", 2); });
      });
  expectVerifies();
}

TEST_F(BuilderTest, LocationsAreAttached) {
  const char *Text = "abc";
  llvm::SMLoc L = llvm::SMLoc::getFromPointer(Text + 1);
  B.setLoc(L);
  B.createFunction("f");
  KernelStmt *K = B.createKernel({1}, 32, {"bx"});
  EXPECT_EQ(K->getLoc().getPointer(), L.getPointer());
  EXPECT_EQ(K->getThreads()->getLoc().getPointer(), L.getPointer());
  EXPECT_EQ(M.getFunctions()[0]->getLoc().getPointer(), L.getPointer());
}

TEST_F(BuilderTest, BuildsIntoTwoFunctions) {
  B.createFunction("a");
  B.createKernel({1}, 32, {"bx"});
  Function *First = B.getFunction();
  B.createFunction("b");
  B.addBufferParam("X", F32, {"M"});
  B.createKernel({B.dim("M")}, 32, {"bx"});
  // Back into the first function: its dims, not the second's.
  B.setInsertionPointToEnd(First->getBodyMutable());
  EXPECT_EQ(B.getFunction(), First);
  EXPECT_EQ(toString(M), "func @a() {\n"
                         "  kernel grid(1) threads(32) (%bx) {\n"
                         "  }\n"
                         "}\n"
                         "\n"
                         "func @b(%X: f32[M]) {\n"
                         "  kernel grid(M) threads(32) (%bx) {\n"
                         "  }\n"
                         "}\n");
}

//===----------------------------------------------------------------------===//
// Misuse asserts
//===----------------------------------------------------------------------===//

#if GTEST_HAS_DEATH_TEST && !defined(NDEBUG)
class BuilderDeathTest : public BuilderTest {
protected:
  BuilderDeathTest() {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    B.createFunction("f");
    A = B.addBufferParam("A", F32, {"M", 64});
  }
  BufferValue *A;
};

TEST_F(BuilderDeathTest, Redefinition) {
  EXPECT_DEATH(B.addScalarParam("A", F32), "redefinition of a parameter");
  EXPECT_DEATH(B.createFunction("f"), "redefinition of a function");
  EXPECT_DEATH(B.createAlloc("A", MemScope::Global, F32, {4}),
               "redefinition of a value still in scope");
  EXPECT_DEATH(B.createKernel({1}, 32, {"bx"}, [&](ArrayRef<Value *>) {
    B.createFor(LoopKind::Serial, "bx", 0, 4, [](Value *) {});
  }),
               "redefinition of a value still in scope");
  EXPECT_DEATH(B.createKernel({1, 1}, 32, {"bx", "bx"}),
               "distinct names");
  // A definition after the insertion point that the new one would clash
  // with.
  KernelStmt *K = B.createKernel({1}, 32, {"bx"});
  B.buildIn(K->getBodyMutable(), [&] { B.createVar("v", F32); });
  B.setInsertionPointToStart(K->getBodyMutable());
  EXPECT_DEATH(B.createVar("v", F32), "after the insertion point");
  EXPECT_DEATH(B.createLet("not a name", 1), "value names are");
  // Symbolic dimensions are identifiers that expressions read as such.
  EXPECT_DEATH(B.addBufferParam("X", F32, {"exp"}), "reserved word");
  EXPECT_DEATH(B.addBufferParam("X", F32, {"f16"}), "not a type name");
  EXPECT_DEATH(B.createFunction("g", {{"pass x", Attribute::getInt(1)}}),
               "attribute names are identifiers");
}

TEST_F(BuilderDeathTest, UseOutOfScope) {
  Value *Inner = nullptr;
  B.createKernel({1}, 32, {"bx"},
                 [&](ArrayRef<Value *> Idx) { Inner = Idx[0]; });
  // %bx is not visible after its kernel.
  EXPECT_DEATH(B.createAlloc("w", MemScope::Global, F32, {Inner}),
               "not in scope");
  EXPECT_DEATH(B.dim("Q"), "unknown symbolic dimension");
}

TEST_F(BuilderDeathTest, LiteralThatCannotTakeItsType) {
  B.createKernel({1}, 32, {"bx"}, [&](ArrayRef<Value *> Idx) {
    EXPECT_DEATH(B.createStore(A, {0.5, 0}, 1), "literal cannot take");
    EXPECT_DEATH(B.createIf(2), "literal cannot take");
    EXPECT_DEATH(B.add(Idx[0], 0.5), "literal cannot take");
    EXPECT_DEATH(B.createStore(A, {0, 0}, std::nan("")), "no NaN or infinite");
    EXPECT_DEATH(B.getFloat(HUGE_VAL), "use inf");
  });
}

TEST_F(BuilderDeathTest, IndicesAndOperands) {
  B.createKernel({1}, 32, {"bx"}, [&](ArrayRef<Value *> Idx) {
    BufferValue *V = B.createVar("v", F32);
    EXPECT_DEATH(B.load(A, {0}), "one index per dimension");
    EXPECT_DEATH(B.createStore(V, {0}, 1), "one index per dimension");
    EXPECT_DEATH(B.add(A, 1), "read element by element");
    EXPECT_DEATH(B.createCopy({A, {0}}, A), "one offset per dimension");
    EXPECT_DEATH(B.createOp("copy", {A}), "wrong number of operands");
    EXPECT_DEATH(B.createOp("frobnicate", {}), "unknown op");
    EXPECT_DEATH(B.createOp("clear", {A}, {{"dim", Attribute::getInt(0)}}),
                 "no attribute of that name");
    EXPECT_DEATH(B.createOp("reduce", {A, V}, {{"dim", Attribute::getInt(0)}}),
                 "requires an attribute");
    EXPECT_DEATH(B.createReduce("median", A, V, 0), "wrong kind");
    EXPECT_DEATH(B.createOp("fill", {A, A}), "wants an expression");
    EXPECT_DEATH(B.createOp("fill", {1, 1}), "wants a region");
    EXPECT_DEATH(B.createFor(LoopKind::Parallel, "i", 0, 4), "createParallel");
    EXPECT_DEATH(B.createKernel({1, 1, 1, 1}, 32, {"a", "b", "c", "d"}),
                 "1 to 3 dimensions");
  });
}
#endif

} // namespace
