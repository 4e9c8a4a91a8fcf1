// The checkpoint folder of diffuse (--checkpoint-dir; native/PROTOCOL.md, "Checkpoints"): its
// file names, metadata.json, and what --resume-step reads back. checkpoints.cpp owns the format.
#ifndef SD_STAGE_CHECKPOINTS_HPP
#define SD_STAGE_CHECKPOINTS_HPP

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "sd_stage.hpp"

namespace stage {

std::string preview_file_name(int step);  // preview_NNN.png

// metadata.json of a fresh run: everything that changes the result, the sigma schedule, no
// checkpoint yet.
nlohmann::json new_metadata(Run& run, const sd_img_gen_params_t& params, const std::vector<float>& sigmas);

// Writes step k's checkpoint DIR/step_NNN.bin (tensor x_t) and records it in metadata.json
// (both atomically), then emits `checkpoint`.
void write_checkpoint(Run& run, const std::filesystem::path& dir, nlohmann::json& meta, const SDStageStepInfo& info);

// Writes DIR/x0_NNN.bin (tensor `latent`), keeps the newest few, emits `x0`. A failure is logged
// once (`warned`) and skipped: a preview never stops sampling.
void write_x0_latent(Run& run, const std::filesystem::path& dir, int step, const sd::Tensor<float>& denoised, bool& warned);

// What --resume-step reads that does not need the model: metadata.json, the step's checkpoint
// (present, its sha256, its shape) and its noise draws. A damaged one is refused (exit 5).
struct ResumePoint {
    nlohmann::json saved;             // metadata.json
    sd::Tensor<float> x;              // x_t of the step
    std::vector<uint32_t> rng_draws;  // the sampler's noise draws up to the step
};
ResumePoint read_resume_point(Run& run, const std::filesystem::path& dir);

// The resumed run must be the checkpointed one (`meta`: this run's new_metadata). Moves the
// start state into *x_start and *rng_draws, copies the checkpoints up to the step into `meta`
// and returns the step.
int resume_from(Run& run, ResumePoint& resume, nlohmann::json& meta, const sd_img_gen_params_t& params,
                sd::Tensor<float>* x_start, std::vector<uint32_t>* rng_draws);

}  // namespace stage

#endif  // SD_STAGE_CHECKPOINTS_HPP
