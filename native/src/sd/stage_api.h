#ifndef __SD_STAGE_API_H__
#define __SD_STAGE_API_H__

// Staged generation for Stepwise's sd-stage: the pieces of generate_image() as separate calls,
// each needing only one module, with the intermediate results as tensors.
//
//   sd_stage_encode_latents   VAE:        init image (+ reference images) -> init latent, ref latents
//   sd_stage_encode_condition LLM:        prompt (+ negative prompt when cfg != 1) -> conditioning
//   sd_stage_sample           DiT:        conditioning, latents, x_t at step k -> final latent
//   sd_stage_decode           VAE:        latent -> image
//
// Every call takes the same sd_img_gen_params_t as generate_image() and computes its part
// exactly as generate_image() does, so the four calls reproduce a monolithic run bit for bit.
// C++ only: tensors are sd::Tensor<float> (tensor.hpp); shapes are ggml order (ne0 first).

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "stable-diffusion.h"
#include "stage_hooks.hpp"
#include "tensor.hpp"

using SDStageTensors = std::vector<std::pair<std::string, sd::Tensor<float>>>;

// Creates a context that allocates and loads only `modules` (sd_stage_module_t bits).
// version_hint ("flux2-klein", ...) names the model family when the given files do not identify
// it (a lone VAE or text encoder); nullptr or "" = detect only.
SD_API sd_ctx_t* sd_stage_new_ctx(const sd_ctx_params_t* params, int modules, const char* version_hint);
SD_API std::string sd_stage_version_name(const sd_ctx_t* sd_ctx);
// The version names version_hint accepts, comma-separated.
SD_API std::string sd_stage_version_names();

// What kind of model a file holds, from its tensor names only (no weights are read):
// "diffusion", "llm", "vae", "unknown"; "" when the file cannot be read.
SD_API std::string sd_stage_probe_model_kind(const char* path);

// init_latent: empty when params has no init image (txt2img: sd_stage_sample makes the zeros).
SD_API bool sd_stage_encode_latents(sd_ctx_t* sd_ctx,
                                    const sd_img_gen_params_t* params,
                                    sd::Tensor<float>* init_latent,
                                    std::vector<sd::Tensor<float>>* ref_latents);

// Names: c_crossattn, c_vector, extra_c_crossattn_N; the negative prompt's as uncond_<name>
// (only when cfg != 1, like generate_image()).
SD_API bool sd_stage_encode_condition(sd_ctx_t* sd_ctx,
                                      const sd_img_gen_params_t* params,
                                      SDStageTensors* condition);

struct SDStageStepInfo {
    int step;                                // steps completed (0..steps)
    int steps;                               // steps of this run, after strength truncation
    const sd::Tensor<float>* x;              // the sampler state after `step` steps
    const std::vector<uint32_t>* rng_draws;  // sizes of the sampler's randn calls so far
};

struct SDStageSampleRequest {
    const sd::Tensor<float>* init_latent              = nullptr;  // null/empty: txt2img
    const std::vector<sd::Tensor<float>>* ref_latents = nullptr;
    const SDStageTensors* condition                   = nullptr;
    // Resume: start after `start_step` completed steps from state x_start, replaying the
    // sampler's recorded randn calls first (rng_draws of that step's SDStageStepInfo).
    int start_step                         = 0;
    const sd::Tensor<float>* x_start       = nullptr;
    const std::vector<uint32_t>* rng_draws = nullptr;
    // Called after the sigma schedule is known, before any model call.
    std::function<void(const std::vector<float>& sigmas)> on_plan;
    // Called at every step boundary, including step 0 (start state) and the last step.
    // Returning false stops sampling after that step (the state stays valid).
    std::function<bool(const SDStageStepInfo& info)> on_step;
    // x0 prediction of the step in progress (1-based), for previews; may change it (soft mask).
    std::function<void(int step, sd::Tensor<float>& denoised)> on_denoised;
};

enum SDStageSampleStatus {
    SD_STAGE_SAMPLE_OK,
    SD_STAGE_SAMPLE_STOPPED,  // on_step returned false
    SD_STAGE_SAMPLE_FAILED,
};

SD_API SDStageSampleStatus sd_stage_sample(sd_ctx_t* sd_ctx,
                                           const sd_img_gen_params_t* params,
                                           const SDStageSampleRequest& request,
                                           sd::Tensor<float>* final_latent);

// Whether resuming `method` from (x_t, rng_draws) alone continues bit-exactly: samplers that keep
// no history between steps (ancestral ones need the rng_draws replay).
SD_API bool sd_stage_sampler_resumable(enum sample_method_t method);

// The sigma schedule sd_stage_sample would use (after strength truncation when has_init_image).
SD_API std::vector<float> sd_stage_sigmas(sd_ctx_t* sd_ctx, const sd_img_gen_params_t* params, bool has_init_image);

SD_API bool sd_stage_decode(sd_ctx_t* sd_ctx,
                            const sd_img_gen_params_t* params,
                            const sd::Tensor<float>& latent,
                            sd_image_t* image);

// Preview of a latent with the given mode (PREVIEW_PROJ needs no model, PREVIEW_VAE the VAE).
SD_API bool sd_stage_preview(sd_ctx_t* sd_ctx, const sd::Tensor<float>& latent, enum preview_t mode, sd_image_t* image);

// Tensor files: named tensors back to back, each in sd.cpp's tensor-file layout
// (int32 n_dims, int32 name_len, int32 ggml_type, int32 ne[n_dims], name, data), f32 only.
// Writes go to a temporary file in the same folder, flushed, fsynced and renamed.
SD_API bool sd_stage_write_tensor_file(const std::string& path, const SDStageTensors& tensors, std::string* error);
// Fails (with a message naming the file and what is wrong) on truncation or garbage.
SD_API bool sd_stage_read_tensor_file(const std::string& path, SDStageTensors* tensors, std::string* error);

#endif  // __SD_STAGE_API_H__
