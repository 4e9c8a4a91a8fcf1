#ifndef __SD_STAGE_PLAN_HPP__
#define __SD_STAGE_PLAN_HPP__

// Plan mode for Stepwise's sd-stage (`--plan`): what a stage would allocate, without loading
// weights or running a graph. While sd_stage_plan().active is set, every GGMLRunner
//   - alloc_params_buffer(): lays its weights out as ggml_backend_alloc_ctx_tensors would (same
//     buffer type, alignment and max buffer size), allocates nothing, marks the tensors as placed
//     (so the graph allocator leaves them alone) and hands no tensor to the model loader;
//   - compute(): builds the graph as a real run does, lays it out with the real graph allocator
//     (ggml_gallocr_reserve_n_size: sizes only), records the sizes and returns zeros of the
//     result's shape, so the caller goes on exactly as in a real run (next graph, next tile).
// Inert unless set (sd-stage sets it before creating the context).

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "ggml-alloc.h"

extern "C" {
// ggml-alloc.c (Stepwise patch): the largest chunk the last reserve laid out for buffer_id.
size_t ggml_gallocr_get_max_chunk_size(ggml_gallocr_t galloc, int buffer_id);
}

struct SDStagePlanRunner {
    std::string desc;            // the runner's get_desc(): "flux", "vae", "qwen3", ...
    std::string device;          // buffer type of the compute backend: "CPU", "Vulkan0", ...
    std::string params_device;   // buffer type the weights live in (differs with --offload-to-cpu)
    size_t weights_bytes          = 0;  // on params_device
    size_t weights_largest_alloc  = 0;
    size_t weights_largest_tensor = 0;
    size_t weights_tensors        = 0;
    // --offload-to-cpu: the copy of the weights made on `device` for each compute (0 otherwise)
    size_t runtime_weights_bytes         = 0;
    size_t runtime_weights_largest_alloc = 0;
    size_t compute_first_bytes           = 0;  // the first graph's buffer: what a real run logs
    size_t compute_bytes                 = 0;  // the largest over the graphs built
    size_t compute_largest_alloc         = 0;
    size_t compute_largest_tensor        = 0;
    int graphs                           = 0;
};

struct SDStagePlan {
    bool active = false;
    std::mutex mutex;
    std::vector<SDStagePlanRunner> runners;
    std::map<const void*, size_t> index;  // runner -> runners[i]

    SDStagePlanRunner& runner(const void* key) {
        auto it = index.find(key);
        if (it != index.end()) {
            return runners[it->second];
        }
        index[key] = runners.size();
        runners.emplace_back();
        return runners.back();
    }
};

inline SDStagePlan& sd_stage_plan() {
    static SDStagePlan plan;
    return plan;
}

// Where plan mode points the weights' data: never read or written (nothing is computed).
inline void* sd_stage_plan_placeholder() {
    alignas(64) static char placeholder[64];
    return placeholder;
}

#endif  // __SD_STAGE_PLAN_HPP__
