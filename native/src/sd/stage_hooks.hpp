#ifndef __SD_STAGE_HOOKS_HPP__
#define __SD_STAGE_HOOKS_HPP__

// Hooks for running the pipeline one module at a time (Stepwise's sd-stage).
// They are inert unless a context is created through sd_stage_new_ctx() (stage_api.h).
// Lives in native/src/sd (not in the upstream tree): the patched stable-diffusion.cpp includes
// it through the include path native/CMakeLists.txt adds to the library (patch 0003).

#include <functional>
#include <set>
#include <string>

#include "tensor.hpp"

enum sd_stage_module_t {
    SD_STAGE_MODULE_LLM       = 1,  // text encoder(s) / conditioner
    SD_STAGE_MODULE_DIFFUSION = 2,  // DiT / UNet
    SD_STAGE_MODULE_VAE       = 4,  // first stage model (VAE or TAE)
    SD_STAGE_MODULE_ALL       = 7,
};

// Installed on the context for the duration of one sd_stage_sample() call.
struct SDStageSampleHooks {
    // Replaces the start state computed from noise and init latent (resume from a checkpoint).
    const sd::Tensor<float>* x_start = nullptr;
    // Called with the sampler's step argument (negative for the first model call of a
    // two-call step) before the model runs on x. Returning false stops sampling.
    std::function<bool(int step, const sd::Tensor<float>& x, float sigma)> before_model;
    // Called with the x0 prediction (after the mask blend) of every model call; may change it.
    std::function<void(int step, sd::Tensor<float>& denoised)> on_denoised;
};

// The tensor-name prefixes of the modules a context does not load, for the loader's ignore set
// (stage_hooks.cpp).
void sd_stage_ignore_unloaded(int modules, std::set<std::string>* ignore_tensors);
// The LoRA tensor filter of a context that loads only `modules`: a LoRA applies only the parts
// that touch a loaded module. nullptr (no filter) when every module is loaded.
std::function<bool(const std::string&)> sd_stage_lora_filter(int modules);

#endif  // __SD_STAGE_HOOKS_HPP__
