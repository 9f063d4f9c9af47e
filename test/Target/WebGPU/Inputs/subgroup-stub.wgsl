// Stand-ins for the subgroup builtins where the adapter lacks the
// subgroups feature: a subgroup of one invocation.
const tile_sgid: u32 = 0u;
fn subgroupAdd(x: f32) -> f32 { return x; }
fn subgroupMax(x: f32) -> f32 { return x; }
fn subgroupMin(x: f32) -> f32 { return x; }
