// A small two-axis (dp=2, tp=4) example shared by the checker and command-line tests: a matmul
// whose batch is split over dp and whose contraction is split over tp, summed over tp.
#pragma once

namespace scalify::test {

/// The reference: y = x · w.
inline constexpr const char* kTwoAxisRef = R"hlo(HloModule r
ENTRY e {
  x = f32[4,8] parameter(0)
  w = f32[8,6] parameter(1)
  ROOT y = f32[4,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)hlo";

/// One rank's program on dp=2,tp=4 (devices dp-major): the all-reduce runs over tp.
inline constexpr const char* kTwoAxisDist = R"hlo(HloModule d
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT add = f32[] add(a, b)
}
ENTRY e {
  x = f32[2,2] parameter(0)
  w = f32[2,6] parameter(1)
  p = f32[2,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT y = f32[2,6] all-reduce(p), replica_groups={{0,1,2,3},{4,5,6,7}}, to_apply=sum
}
)hlo";

/// The tp groups of kTwoAxisDist, and the dp groups a bug would use instead.
inline constexpr const char* kTwoAxisTpGroups = "{{0,1,2,3},{4,5,6,7}}";
inline constexpr const char* kTwoAxisDpGroups = "{{0,4},{1,5},{2,6},{3,7}}";

}  // namespace scalify::test
