//===- TestDevOps.td - The testdev dialect -------------------*- tablegen -*-===//
//
// One op, lowered only by the TestDev backend.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_UNITTESTS_TESTDEVOPS_TD
#define TILE_UNITTESTS_TESTDEVOPS_TD

include "tile/Target/DialectBase.td"

def TestDevDialect : Dialect<"testdev"> {
  let Summary = "Ops of the unit-test backend";
  let CppPrefix = "TestDev";
  let RegisterFn = "registerTestDevOps";
}

def TestDevMagicOp : Op<TestDevDialect, "magic"> {
  let Summary = "Does magic to a tile";
  let Example = "testdev.magic %T";
  let Arguments = (ins Region:$dst);
  let Format = "$dst attr-dict";
}

#endif // TILE_UNITTESTS_TESTDEVOPS_TD
