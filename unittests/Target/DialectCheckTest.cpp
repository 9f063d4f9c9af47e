//===- DialectCheckTest.cpp - Dialect ops against the resolved target -----===//
//
// A module built with the IR classes (no parser): a kernel with a loop
// holding cuda ops, each with a location in a source buffer. The dialect-use
// check must accept it on Hopper, reject every cuda op on ROCm at its
// location (naming op, dialect, target and the backends that accept it),
// and on CUDA sm_86 reject the ops needing Hopper features.
//
//===----------------------------------------------------------------------===//

#include "TestHelpers.h"
#include "tile/IR/Diagnostics.h"
#include "tile/IR/IR.h"
#include "tile/Target/AllTargets.h"
#include "tile/Target/DialectCheck.h"
#include "tile/Target/TargetRegistry.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "gtest/gtest.h"

using namespace tile;
using tile::testing::errorText;

namespace {

/// Text the locations point into; the module is built, not parsed.
const char *const Source = "kernel {\n"
                           "  for {\n"
                           "    cuda.wgmma %As, %Bs -> %Cf\n"
                           "    cuda.mbarrier_wait %bar, 0\n"
                           "    copy %As -> %Bs\n"
                           "  }\n"
                           "}\n";

class DialectCheckTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::cantFail(registerAllTargetBackends(Registry));
    Registry.registerDialects(Ctx.getOpRegistry());
    SM.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(Source, "kernel.tile"), llvm::SMLoc());
    Start = SM.getMemoryBuffer(SM.getMainFileID())->getBufferStart();
    buildModule();
  }

  llvm::SMLoc locOf(llvm::StringRef Text) {
    const char *P = strstr(Start, Text.data());
    EXPECT_NE(P, nullptr) << Text.str();
    return llvm::SMLoc::getFromPointer(P);
  }

  BufferValue *alloc(Block &B, llvm::StringRef Name, MemScope Scope) {
    std::vector<ExprPtr> Shape;
    Shape.push_back(std::make_unique<IntLitExpr>(64, DType::I32));
    auto Buf = std::make_unique<BufferValue>(Name, DType::F16, Scope,
                                             std::move(Shape),
                                             std::vector<ExprPtr>(), false,
                                             llvm::SMLoc());
    BufferValue *Raw = Buf.get();
    B.Stmts.push_back(
        std::make_unique<AllocStmt>(std::move(Buf), AttributeList()));
    return Raw;
  }

  static std::vector<OpOperand> regions(std::initializer_list<BufferValue *> Bufs) {
    std::vector<OpOperand> Out;
    for (BufferValue *Buf : Bufs) {
      OpOperand O;
      O.Kind = OperandKind::Region;
      O.R.Buf = Buf;
      Out.push_back(std::move(O));
    }
    return Out;
  }

  void addOp(Block &B, llvm::StringRef Name, std::vector<OpOperand> Operands,
             llvm::SMLoc Loc) {
    const OpInfo *Info = Ctx.getOpRegistry().lookup(Name);
    ASSERT_NE(Info, nullptr) << Name.str();
    B.Stmts.push_back(std::make_unique<OpStmt>(Info, std::move(Operands),
                                               AttributeList(), Loc));
  }

  void buildModule() {
    M = std::make_unique<Module>(Ctx);
    auto F = std::make_unique<Function>("f");
    Block KernelBody;
    BufferValue *As = alloc(KernelBody, "As", MemScope::Shared);
    BufferValue *Bs = alloc(KernelBody, "Bs", MemScope::Shared);
    BufferValue *Cf = alloc(KernelBody, "Cf", MemScope::Fragment);
    BufferValue *Bar = alloc(KernelBody, "bar", MemScope::Shared);

    Block LoopBody;
    addOp(LoopBody, "cuda.wgmma", regions({As, Bs, Cf}),
          locOf("cuda.wgmma"));
    std::vector<OpOperand> WaitOps = regions({Bar});
    OpOperand Phase;
    Phase.Kind = OperandKind::Expr;
    Phase.E = std::make_unique<IntLitExpr>(0, DType::I32);
    WaitOps.push_back(std::move(Phase));
    addOp(LoopBody, "cuda.mbarrier_wait", std::move(WaitOps),
          locOf("cuda.mbarrier_wait"));
    addOp(LoopBody, "copy", regions({As, Bs}), locOf("copy"));

    std::vector<LoopDim> Dims;
    Dims.push_back({std::make_unique<Value>(Value::Kind::LoopVar, "k",
                                            DType::I32, llvm::SMLoc()),
                    std::make_unique<IntLitExpr>(0, DType::I32),
                    std::make_unique<IntLitExpr>(4, DType::I32)});
    KernelBody.Stmts.push_back(std::make_unique<ForStmt>(
        LoopKind::Serial, std::move(Dims), nullptr, AttributeList(),
        std::move(LoopBody), locOf("for")));

    std::vector<ExprPtr> Grid;
    Grid.push_back(std::make_unique<IntLitExpr>(1, DType::I32));
    std::vector<std::unique_ptr<Value>> BlockIdx;
    BlockIdx.push_back(std::make_unique<Value>(Value::Kind::BlockIdx, "bx",
                                               DType::I32, llvm::SMLoc()));
    F->getBodyMutable().Stmts.push_back(std::make_unique<KernelStmt>(
        std::move(Grid), std::make_unique<IntLitExpr>(128, DType::I32),
        std::move(BlockIdx), nullptr, AttributeList(), std::move(KernelBody),
        locOf("kernel")));
    M->addFunction(std::move(F));
  }

  /// Runs the check for \p Target; returns the diagnostics as printed.
  std::string check(llvm::StringRef Target, bool &OK) {
    ResolveOptions Opts;
    Opts.RequireAvailable = false;
    llvm::Expected<BackendContext> BC =
        resolveBackendContext(Registry, Target, "", "auto", Opts);
    EXPECT_EQ(errorText(BC), "success");
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    DiagnosticEngine Diag(&SM, &OS);
    OK = verifyDialectUse(Registry, *BC, *M, Diag);
    return Out;
  }

  TargetRegistry Registry;
  TileContext Ctx;
  llvm::SourceMgr SM;
  const char *Start = nullptr;
  std::unique_ptr<Module> M;
};

TEST_F(DialectCheckTest, HopperAcceptsTheCudaOps) {
  bool OK = false;
  EXPECT_EQ(check("cuda -arch=sm_90a", OK), "");
  EXPECT_TRUE(OK);
}

TEST_F(DialectCheckTest, AnotherBackendsTargetIsALocatedError) {
  bool OK = true;
  std::string Out = check("hip -mcpu=gfx942", OK);
  EXPECT_FALSE(OK);
  EXPECT_EQ(Out,
            "kernel.tile:3:5: error: op 'cuda.wgmma' of dialect 'cuda' cannot "
            "be used with target 'hip -mcpu=gfx942' (backend ROCm); dialect "
            "'cuda' is lowered by backends CUDA, Hopper; use a target of "
            "those backends, or common tile ops\n"
            "    cuda.wgmma %As, %Bs -> %Cf\n"
            "    ^\n"
            "kernel.tile:4:5: error: op 'cuda.mbarrier_wait' of dialect "
            "'cuda' cannot be used with target 'hip -mcpu=gfx942' (backend "
            "ROCm); dialect 'cuda' is lowered by backends CUDA, Hopper; use a "
            "target of those backends, or common tile ops\n"
            "    cuda.mbarrier_wait %bar, 0\n"
            "    ^\n");
}

TEST_F(DialectCheckTest, MissingFeatureIsALocatedError) {
  bool OK = true;
  std::string Out = check("cuda -arch=sm_86", OK);
  EXPECT_FALSE(OK);
  // mbarrier exists on sm_86; wgmma does not.
  EXPECT_EQ(Out, "kernel.tile:3:5: error: op 'cuda.wgmma' needs target "
                 "feature 'wgmma', which target 'cuda -arch=sm_86' (backend "
                 "CUDA) does not have; it is enabled for cuda targets of "
                 "backend Hopper with arch >= sm_90a\n"
                 "    cuda.wgmma %As, %Bs -> %Cf\n"
                 "    ^\n");
}

TEST_F(DialectCheckTest, DiagnosticsCarryTheOpLocation) {
  ResolveOptions Opts;
  Opts.RequireAvailable = false;
  llvm::Expected<BackendContext> BC =
      resolveBackendContext(Registry, "cpu", "", "auto", Opts);
  ASSERT_EQ(errorText(BC), "success");
  std::vector<Diagnostic> Got;
  DiagnosticEngine Diag(&SM);
  Diag.setHandler([&](const Diagnostic &D) { Got.push_back(D); });
  EXPECT_FALSE(verifyDialectUse(Registry, *BC, *M, Diag));
  ASSERT_EQ(Got.size(), 2u);
  EXPECT_EQ(Got[0].Loc, locOf("cuda.wgmma"));
  EXPECT_EQ(Got[1].Loc, locOf("cuda.mbarrier_wait"));
  EXPECT_EQ(Diag.getNumErrors(), 2u);
}

} // namespace
