// RUN: tile-tblgen -gen-op-defs -op-dialect=demo -I %tile_include %s | FileCheck %s

// The emitter's output for a small dialect: the enum, operand and attribute
// tables, the OpInfo table sorted by name, and the registration function.

include "tile/IR/OpBase.td"

def DemoDialect : Dialect<"demo"> {
  let CppPrefix = "Demo";
  let RegisterFn = "registerDemoOps";
}

def ZetaOp : Op<DemoDialect, "zeta"> {
  let Summary = "Last by name";
  let Arguments = (ins Region:$dst, Expr:$value,
                   EnumAttr<["lo", "hi"], "hi", "which end">:$side,
                   IntAttr<"", "required count">:$count);
  let Format = "$side $dst `,` $value attr-dict";
  let Verifier = "verifyZeta";
  let Elementwise = 1;
  let Writes = ["dst"];
}

def AlphaOp : Op<DemoDialect, "alpha"> {
  let Summary = "First by name";
  let Format = "attr-dict";
}

// CHECK:      #ifdef GET_TILE_OP_ENUM
// CHECK:      enum class DemoOpCode : unsigned {
// CHECK-NEXT:   Alpha,
// CHECK-NEXT:   Zeta,
// CHECK-NEXT: };
// CHECK:      #ifdef GET_TILE_OP_TABLE
// CHECK:      bool verifyZeta(const OpStmt &, DiagnosticEngine &);
// CHECK:      const char *const kZeta_SideValues[] = {"lo", "hi"};
// CHECK-NEXT: const OpOperandInfo kZetaOperands[] = {
// CHECK-NEXT:   {"dst", OperandKind::Region, "", true},
// CHECK-NEXT:   {"value", OperandKind::Expr, "", false},
// CHECK-NEXT: };
// CHECK-NEXT: const OpAttrInfo kZetaAttrs[] = {
// CHECK-NEXT:   {"side", AttrKind::Enum, "hi", kZeta_SideValues, 2, "which end"},
// CHECK-NEXT:   {"count", AttrKind::Int, nullptr, nullptr, 0, "required count"},
// CHECK-NEXT: };
// CHECK-NEXT: const OpInfo kDemoOps[] = {
// CHECK-NEXT:   {"demo.alpha", "demo",
// CHECK:         "attr-dict",
// CHECK-NEXT:    nullptr, 0, nullptr, 0, nullptr, 0, false},
// CHECK-NEXT:   {"demo.zeta", "demo",
// CHECK:         "$side $dst `,` $value attr-dict",
// CHECK-NEXT:    kZetaOperands, 2, kZetaAttrs, 2, verifyZeta, 1, true},
// CHECK-NEXT: };
// CHECK:      void registerDemoOps(OpRegistry &R) {
// CHECK-NEXT:   R.registerDialect("demo", kDemoOps);
// CHECK-NEXT: }
