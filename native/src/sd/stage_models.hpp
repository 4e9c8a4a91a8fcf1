#ifndef __SD_STAGE_MODELS_HPP__
#define __SD_STAGE_MODELS_HPP__

// What Stepwise's patch 0007 adds to the model classes, kept out of the upstream headers: the
// patched llm.hpp, conditioner.hpp and auto_encoder_kl.hpp include this file (after
// ggml_extend.hpp and model.h) and call these helpers from their constructors.

#include <cinttypes>
#include <cstdlib>
#include <initializer_list>
#include <set>
#include <string>

#include "ggml_extend.hpp"
#include "model.h"

// Marks the tensors under any of `prefixes` not_built: the loader neither reads nor reports them
// (a block the model deliberately does not build).
inline void sd_stage_mark_not_built(const String2TensorStorage& tensor_storage_map, std::initializer_list<std::string> prefixes) {
    for (auto& [name, tensor_storage] : tensor_storage_map) {
        for (const std::string& prefix : prefixes) {
            if (starts_with(name, prefix)) {
                tensor_storage.not_built = true;
            }
        }
    }
}

// The layers whose hidden states a version's LLM conditioner reads (empty: the final, normed
// output). The LLM builds and loads no block after the last of them.
inline std::set<int> sd_stage_llm_out_layers(SDVersion version) {
    if (version == VERSION_FLUX2) {
        return {10, 20, 30};
    } else if (sd_version_is_ernie_image(version)) {
        return {25};  // -2
    } else if (sd_version_is_z_image(version)) {
        return {35};  // -2
    } else if (version == VERSION_FLUX2_KLEIN) {
        return {9, 18, 27};
    }
    return {};
}

// The caller reads the hidden states after layers <= last_out_layer only (klein: 9, 18, 27): the
// blocks after it and the final norm are never computed, so they are neither built nor loaded
// (Qwen3-8B: 9 of 36 blocks, about 1 GiB). `Params` is LLM::LLMParams.
template <typename Params>
void sd_stage_trim_llm(Params& params, const String2TensorStorage& tensor_storage_map, const std::string& prefix, int last_out_layer) {
    if (last_out_layer <= 0 || last_out_layer >= params.num_layers) {
        return;
    }
    LOG_INFO("llm: reading the hidden states up to layer %d of %" PRId64 ": blocks %d..%" PRId64 " and the final norm are not loaded",
             last_out_layer, params.num_layers, last_out_layer, params.num_layers - 1);
    for (auto& [name, tensor_storage] : tensor_storage_map) {
        if (name.find(prefix) != 0) {
            continue;
        }
        std::string rest = name.substr(prefix.size());
        bool unused      = starts_with(rest, ".model.norm.") || starts_with(rest, ".norm.");
        size_t pos       = rest.find("layers.");
        if (!unused && pos != std::string::npos && rest.find("visual.") == std::string::npos) {
            unused = atoi(rest.c_str() + pos + 7) >= last_out_layer;
        }
        tensor_storage.not_built = tensor_storage.not_built || unused;
    }
    params.num_layers = last_out_layer;
    params.final_norm = false;
}

// The token embedding's type. sd.cpp's Embedding turns every type outside a short list (all
// K-quants) into F32: 2,374 MiB for the Q4_K embedding of a Qwen3-8B Q4_K_M file, more than some
// GPU drivers allocate at once. Keep the file's type when the compute backend's get_rows takes it
// and it fits one allocation, else Q8_0, F16, F32 (converted at load). On the CPU this is exact:
// get_rows dequantizes a row with the same to_float that the load used to expand the whole
// tensor to F32. GGML_TYPE_COUNT: sd.cpp's Embedding decides.
inline ggml_type sd_stage_embedding_type(ggml_backend_t backend, ggml_type file_type, int64_t ne0, int64_t ne1) {
    const ggml_type candidates[] = {file_type, GGML_TYPE_Q8_0, GGML_TYPE_F16, GGML_TYPE_F32};
    ggml_init_params ctx_params  = {ggml_tensor_overhead() * 3 * 4, nullptr, true};
    ggml_context* ctx            = ggml_init(ctx_params);
    if (backend == nullptr || ctx == nullptr) {
        if (ctx != nullptr) {
            ggml_free(ctx);
        }
        return GGML_TYPE_COUNT;
    }
    size_t max_size           = ggml_backend_buft_get_max_size(ggml_backend_get_default_buffer_type(backend));
    ggml_type first_supported = GGML_TYPE_COUNT;
    ggml_type chosen          = GGML_TYPE_COUNT;
    for (ggml_type type : candidates) {
        if (type >= GGML_TYPE_COUNT || ne0 % ggml_blck_size(type) != 0) {
            continue;
        }
        ggml_tensor* weight = ggml_new_tensor_2d(ctx, type, ne0, ne1);
        ggml_tensor* ids    = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 1);
        if (!ggml_backend_supports_op(backend, ggml_get_rows(ctx, weight, ids))) {
            continue;
        }
        if (first_supported == GGML_TYPE_COUNT) {
            first_supported = type;
        }
        if (ggml_nbytes(weight) <= max_size) {
            chosen = type;
            break;
        }
    }
    ggml_free(ctx);
    return chosen != GGML_TYPE_COUNT ? chosen : first_supported;
}

// The type the LLM's token embedding `name` gets (sd_stage_embedding_type), logged.
inline ggml_type sd_stage_llm_embedding_type(ggml_backend_t backend, const String2TensorStorage& tensor_storage_map,
                                             const std::string& name, int64_t hidden_size, int64_t vocab_size) {
    auto it = tensor_storage_map.find(name);
    if (it == tensor_storage_map.end() || it->second.expected_type != GGML_TYPE_COUNT) {
        return GGML_TYPE_COUNT;
    }
    ggml_type file_type = it->second.type;
    ggml_type type      = sd_stage_embedding_type(backend, file_type, hidden_size, vocab_size);
    LOG_INFO("llm: token embedding %s in the file, kept as %s on %s", ggml_type_name(file_type),
             type == GGML_TYPE_COUNT ? "(sd.cpp's choice)" : ggml_type_name(type), backend ? ggml_backend_name(backend) : "?");
    return type;
}

// An Embedding whose weight has a type chosen by the caller (sd_stage_embedding_type);
// GGML_TYPE_COUNT: sd.cpp's own Embedding.
struct SDStageTypedEmbedding : public Embedding {
    ggml_type wtype;
    SDStageTypedEmbedding(int64_t num_embeddings, int64_t embedding_dim, ggml_type wtype)
        : Embedding(num_embeddings, embedding_dim), wtype(wtype) {}

protected:
    void init_params(ggml_context* ctx, const String2TensorStorage& tensor_storage_map, const std::string prefix = "") override {
        if (wtype == GGML_TYPE_COUNT) {
            Embedding::init_params(ctx, tensor_storage_map, prefix);
        } else {
            params["weight"] = ggml_new_tensor_2d(ctx, wtype, embedding_dim, num_embeddings);
        }
    }
};

#endif  // __SD_STAGE_MODELS_HPP__
