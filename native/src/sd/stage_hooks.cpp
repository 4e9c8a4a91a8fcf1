// The module mask's effect on loading (stage_hooks.hpp), compiled into the sd.cpp library.

#include "stage_hooks.hpp"

#include "name_conversion.h"

void sd_stage_ignore_unloaded(int modules, std::set<std::string>* ignore_tensors) {
    if ((modules & SD_STAGE_MODULE_LLM) == 0) {
        for (const char* prefix : {"cond_stage_model.", "conditioner.embedders.", "text_encoders."}) {
            ignore_tensors->insert(prefix);
        }
    }
    if ((modules & SD_STAGE_MODULE_DIFFUSION) == 0) {
        ignore_tensors->insert("model.diffusion_model.");
        ignore_tensors->insert("model.high_noise_diffusion_model.");
    }
    if ((modules & SD_STAGE_MODULE_VAE) == 0) {
        ignore_tensors->insert("first_stage_model.");
        ignore_tensors->insert("tae.");
    }
}

std::function<bool(const std::string&)> sd_stage_lora_filter(int modules) {
    if (modules == SD_STAGE_MODULE_ALL) {
        return nullptr;
    }
    return [modules](const std::string& name) {
        return ((modules & SD_STAGE_MODULE_LLM) != 0 && is_cond_stage_model_name(name)) ||
               ((modules & SD_STAGE_MODULE_DIFFUSION) != 0 && is_diffusion_model_name(name)) ||
               ((modules & SD_STAGE_MODULE_VAE) != 0 && is_first_stage_model_name(name));
    };
}
