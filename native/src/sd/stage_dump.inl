// The dump hook of generate_image() (patch 0005), included by the patched stable-diffusion.cpp
// just before generate_image(). A test build (CMake SD_STAGE_TEST_HOOKS, native/build.py
// --test-hooks) writes, with SD_STAGE_DUMP_DIR=<dir> set, init_latent.bin (img2img only),
// ref_latents.bin (with -r), cond.bin and final_latent.bin there, in the tensor-file format and
// with the tensor names of sd-stage's outputs, so that a monolithic sd-cli run and the staged
// one can be compared byte for byte. In a release build the hooks are empty.

#include "stage_api.h"

#ifdef SD_STAGE_TEST_HOOKS

#include <cstdlib>
#include <filesystem>

static void sd_stage_condition_to_tensors(const SDCondition& cond, const std::string& prefix, SDStageTensors* out);  // stage_api.inl

static void sd_stage_dump(const char* file_name, const SDStageTensors& tensors) {
    const char* dir = std::getenv("SD_STAGE_DUMP_DIR");
    if (dir == nullptr || *dir == '\0') {
        return;
    }
    std::string path = (std::filesystem::u8path(dir) / file_name).string();
    std::string error;
    if (sd_stage_write_tensor_file(path, tensors, &error)) {
        LOG_INFO("SD_STAGE_DUMP_DIR: wrote %s", path.c_str());
    } else {
        LOG_ERROR("SD_STAGE_DUMP_DIR: %s", error.c_str());
    }
}

static void sd_stage_dump_latents(const sd_img_gen_params_t* params, const ImageGenerationLatents& latents) {
    if (params->init_image.data != nullptr) {
        sd_stage_dump("init_latent.bin", {{"latent", latents.init_latent}});
    }
    SDStageTensors refs;
    for (size_t i = 0; i < latents.ref_latents.size(); i++) {
        refs.emplace_back("ref_" + std::to_string(i), latents.ref_latents[i]);
    }
    if (!refs.empty()) {
        sd_stage_dump("ref_latents.bin", refs);
    }
}

static void sd_stage_dump_embeds(const ImageGenerationEmbeds& embeds) {
    SDStageTensors cond;
    sd_stage_condition_to_tensors(embeds.cond, "", &cond);
    sd_stage_condition_to_tensors(embeds.uncond, "uncond_", &cond);
    sd_stage_dump("cond.bin", cond);
}

static void sd_stage_dump_final(const sd::Tensor<float>& x_0) {
    sd_stage_dump("final_latent.bin", {{"latent", x_0}});
}

#else  // release build: no dump

static inline void sd_stage_dump_latents(const sd_img_gen_params_t*, const ImageGenerationLatents&) {}
static inline void sd_stage_dump_embeds(const ImageGenerationEmbeds&) {}
static inline void sd_stage_dump_final(const sd::Tensor<float>&) {}

#endif  // SD_STAGE_TEST_HOOKS
