// -gen-pass-defs: pass options, with the function attribute that sets one
// for a single function, and the located errors for such attributes.
// RUN: tile-tblgen -gen-pass-defs -I %tile_include %s | FileCheck %s
// RUN: tile-tblgen -gen-pass-docs -I %tile_include %s | FileCheck %s --check-prefix=DOCS
// RUN: not tile-tblgen -gen-pass-defs -I %tile_include -DBADNAME %s 2>&1 | FileCheck %s --check-prefix=BADNAME
// RUN: not tile-tblgen -gen-pass-defs -I %tile_include -DSTRING %s 2>&1 | FileCheck %s --check-prefix=STRING
// RUN: not tile-tblgen -gen-pass-defs -I %tile_include -DINTVALUES %s 2>&1 | FileCheck %s --check-prefix=INTVALUES

include "tile/Transforms/PassBase.td"

def DemoPasses : PassGroup<"registerDemoPasses">;

def Demo : Pass<DemoPasses, "demo-lower"> {
  let Summary = "Lower demo ops";
  let Options = [
    PassOption<"unroll", "int", "4", "unroll factor">,
    PassOption<"fast", "bool", "true", "take the fast path", "pass.demo_fast">,
    PassOption<"mode", "string", "auto", "which path", "pass.demo_mode",
               ["auto", "on", "off"]>,
    PassOption<"note", "string", "", "any text">,
  ];
  let Constructor = "createDemoPass";
}

// CHECK:      const PassOptionInfo kDemoLowerOptions[] = {
// CHECK-NEXT:   {"unroll", "int", "4", "unroll factor", nullptr, nullptr},
// CHECK-NEXT:   {"fast", "bool", "true", "take the fast path", "pass.demo_fast", nullptr},
// CHECK-NEXT:   {"mode", "string", "auto", "which path", "pass.demo_mode", "auto|on|off"},
// CHECK-NEXT:   {"note", "string", "", "any text", nullptr, nullptr},
// CHECK-NEXT: };
// DOCS: | `fast` | bool | `true` | take the fast path; per function: `pass.demo_fast` |
// DOCS: | `mode` | auto \| on \| off | `auto` | which path; per function: `pass.demo_mode` |

#ifdef BADNAME
def Bad : Pass<DemoPasses, "demo-bad"> {
  // BADNAME: pass-options.td:[[@LINE+1]]:7: error: function attribute 'demo.fast' of option 'fast' of pass 'demo-bad' must be named pass.<name>, with lower-case letters, digits and '_'
  let Options = [PassOption<"fast", "bool", "true", "", "demo.fast">];
  let Constructor = "createBadPass";
}
#endif

#ifdef STRING
def Str : Pass<DemoPasses, "demo-str"> {
  // STRING: pass-options.td:[[@LINE+1]]:7: error: default 'a' of option 'mode' of pass 'demo-str' is not one of its values (on, off)
  let Options = [PassOption<"mode", "string", "a", "", "pass.mode", ["on", "off"]>];
  let Constructor = "createStrPass";
}
#endif

#ifdef INTVALUES
def IntValues : Pass<DemoPasses, "demo-int-values"> {
  // INTVALUES: pass-options.td:[[@LINE+1]]:7: error: option 'n' of pass 'demo-int-values' lists values but is a int; only a string option takes a list of values
  let Options = [PassOption<"n", "int", "1", "", "", ["1", "2"]>];
  let Constructor = "createIntValuesPass";
}
#endif
