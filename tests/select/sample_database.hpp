#pragma once
// Databases for the selection tests: two identities, a few problems, real family configuration strings.
#include "select/database.hpp"

namespace tilewise::testkit {

inline const select::Identity kH200{"NVIDIA H200", 132, "9.0", "580.95 (CUDA 13.0)", "13.0", "13.1.0", "13.0", "0.1.0"};
inline select::Identity other_driver() {
  select::Identity id = kH200;
  id.driver = "590.10 (CUDA 13.1)";
  return id;
}

inline Problem problem(int64_t m, int64_t n, int64_t k, DType d = DType::bf16, Layout l = Layout::TN) {
  return make_problem("", m, n, k, d, l);
}

inline const char* kSm90A = "block_m=128,block_n=128,stages=6,consumers=2,raster=m,group=8,store=tma,"
                            "schedule=cooperative,cluster=1x1";
inline const char* kSm90B = "block_m=128,block_n=128,stages=4,consumers=2,raster=n,group=16,store=tma_ring,"
                            "schedule=pingpong,cluster=2x1";
inline const char* kLt = "algo=66,tile=28,stages=18,splitk=1,reduction=0,swizzle=0,custom=0,inner=0,cluster=2";

inline select::Database sample_database() {
  select::Database db;
  select::add(db, kH200, problem(4096, 4096, 4096), "sm90", kSm90A, 180.5, "campaign-a.json");
  select::add(db, kH200, problem(4096, 4096, 4096), "cublaslt", kLt, 175.25);
  select::add(db, kH200, problem(16, 16384, 4096, DType::fp16, Layout::NN), "sm90", kSm90B, 40.0);
  return db;
}

}  // namespace tilewise::testkit
