// Each malformed op declaration is a located error.
// RUN: not tile-tblgen -gen-op-defs -op-dialect=demo -I %tile_include -DDUP %s 2>&1 | FileCheck %s --check-prefix=DUP
// RUN: not tile-tblgen -gen-op-defs -op-dialect=demo -I %tile_include -DBADTOK %s 2>&1 | FileCheck %s --check-prefix=BADTOK
// RUN: not tile-tblgen -gen-op-defs -op-dialect=demo -I %tile_include -DUNKNOWN %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tile-tblgen -gen-op-defs -op-dialect=demo -I %tile_include -DTWICE %s 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not tile-tblgen -gen-op-defs -op-dialect=demo -I %tile_include -DUNPLACED %s 2>&1 | FileCheck %s --check-prefix=UNPLACED
// RUN: not tile-tblgen -gen-op-defs -op-dialect=demo -I %tile_include -DNODICT %s 2>&1 | FileCheck %s --check-prefix=NODICT
// RUN: not tile-tblgen -gen-op-defs -op-dialect=demo -I %tile_include -DENUMDEFAULT %s 2>&1 | FileCheck %s --check-prefix=ENUMDEFAULT
// RUN: not tile-tblgen -gen-op-defs -op-dialect=demo -I %tile_include -DDUPARG %s 2>&1 | FileCheck %s --check-prefix=DUPARG
// RUN: not tile-tblgen -gen-op-defs -op-dialect=demo -I %tile_include -DNOTARG %s 2>&1 | FileCheck %s --check-prefix=NOTARG
// RUN: not tile-tblgen -gen-op-defs -op-dialect=demo -I %tile_include -DMNEMONIC %s 2>&1 | FileCheck %s --check-prefix=MNEMONIC
// RUN: not tile-tblgen -gen-op-defs -op-dialect=demo -I %tile_include -DWRITES %s 2>&1 | FileCheck %s --check-prefix=WRITES
// RUN: not tile-tblgen -gen-op-defs -op-dialect=nosuch -I %tile_include %s 2>&1 | FileCheck %s --check-prefix=NODIALECT

include "tile/IR/OpBase.td"

def DemoDialect : Dialect<"demo"> {
  let RegisterFn = "registerDemoOps";
}

#ifdef DUP
def FirstOp : Op<DemoDialect, "same"> { let Format = "attr-dict"; }
// DUP: op-errors.td:[[@LINE+1]]:5: error: duplicate op 'demo.same'
def SecondOp : Op<DemoDialect, "same"> { let Format = "attr-dict"; }
// DUP: op-errors.td:[[@LINE-3]]:5: note: previous declaration is here
#endif

#ifdef BADTOK
// BADTOK: op-errors.td:[[@LINE+1]]:44: error: bad token '->' in format of 'BadTokOp': expected $name, `literal` or attr-dict
def BadTokOp : Op<DemoDialect, "bt"> { let Format = "-> attr-dict"; }
#endif

#ifdef UNKNOWN
// UNKNOWN: op-errors.td:[[@LINE+3]]:7: error: format of 'UnknownOp' names '$nope', which is not one of its arguments
def UnknownOp : Op<DemoDialect, "unk"> {
  let Arguments = (ins Region:$dst);
  let Format = "$dst $nope attr-dict";
}
#endif

#ifdef TWICE
// TWICE: op-errors.td:[[@LINE+3]]:7: error: format of 'TwiceOp' names '$dst' twice
def TwiceOp : Op<DemoDialect, "twice"> {
  let Arguments = (ins Region:$dst);
  let Format = "$dst $dst attr-dict";
}
#endif

#ifdef UNPLACED
// UNPLACED: op-errors.td:[[@LINE+3]]:7: error: format of 'UnplacedOp' does not place operand '$src'
def UnplacedOp : Op<DemoDialect, "unplaced"> {
  let Arguments = (ins Region:$dst, Region:$src);
  let Format = "$dst attr-dict";
}
#endif

#ifdef NODICT
// NODICT: op-errors.td:[[@LINE+3]]:7: error: format of 'NoDictOp' has no attr-dict
def NoDictOp : Op<DemoDialect, "nodict"> {
  let Arguments = (ins Region:$dst);
  let Format = "$dst";
}
#endif

#ifdef ENUMDEFAULT
// ENUMDEFAULT: op-errors.td:[[@LINE+2]]:7: error: default 'mid' of enum attribute 'side' in 'EnumOp' is not one of its values
def EnumOp : Op<DemoDialect, "enum"> {
  let Arguments = (ins EnumAttr<["lo", "hi"], "mid">:$side);
  let Format = "attr-dict";
}
#endif

#ifdef DUPARG
// DUPARG: op-errors.td:[[@LINE+2]]:7: error: duplicate argument 'x' in 'DupArgOp'
def DupArgOp : Op<DemoDialect, "duparg"> {
  let Arguments = (ins Region:$x, Expr:$x);
  let Format = "$x attr-dict";
}
#endif

#ifdef NOTARG
def NotAnArg;
// NOTARG: op-errors.td:[[@LINE+2]]:7: error: argument 'x' of 'NotArgOp' is neither an OperandKind nor an Attr
def NotArgOp : Op<DemoDialect, "notarg"> {
  let Arguments = (ins NotAnArg:$x);
  let Format = "attr-dict";
}
#endif

#ifdef MNEMONIC
// MNEMONIC: op-errors.td:[[@LINE+1]]:5: error: op 'BadNameOp' has mnemonic 'a-b'; use letters, digits and '_'
def BadNameOp : Op<DemoDialect, "a-b"> { let Format = "attr-dict"; }
#endif

#ifdef WRITES
// WRITES: op-errors.td:[[@LINE+4]]:7: error: 'WritesOp' writes 'out', which is not one of its operands
def WritesOp : Op<DemoDialect, "writes"> {
  let Arguments = (ins Region:$dst);
  let Format = "$dst attr-dict";
  let Writes = ["out"];
}
#endif

// NODIALECT: error: no Dialect record named 'nosuch' (pass -op-dialect=NAME)
