// Checks of every tensor a stage reads, before any ggml call: names, dims, size, values.
// A file that passes here has exactly the shape the stage's model expects, so a damaged or
// foreign file ends with exit 5 and a one-line message, never in a GGML assertion.

#include <cmath>
#include <set>
#include <sstream>

#include "model.h"
#include "sd_stage.hpp"

namespace stage {
namespace {

std::string shape_text(const std::vector<int64_t>& shape) {
    std::ostringstream out;
    out << "[";
    for (size_t i = 0; i < shape.size(); i++) {
        out << (i ? ", " : "") << shape[i];
    }
    out << "]";
    return out.str();
}

[[noreturn]] void refuse(const std::string& flag, const std::string& path, const std::string& what) {
    throw StageError(EXIT_BAD_INPUT, flag + " '" + path + "': " + what + " (pass the file the matching stage of this build wrote)");
}

void check_finite(const std::string& flag, const std::string& path, const std::string& name, const sd::Tensor<float>& t) {
    int64_t bad = 0;
    const float* data = t.data();
    for (int64_t i = 0; i < t.numel(); i++) {
        bad += std::isfinite(data[i]) ? 0 : 1;
    }
    if (bad > 0) {
        refuse(flag, path, "tensor '" + name + "' holds " + std::to_string(bad) + " NaN/Inf values, expected finite numbers");
    }
}

void check_dims_positive(const std::string& flag, const std::string& path, const std::string& name, const sd::Tensor<float>& t) {
    for (int64_t d : t.shape()) {
        if (d < 1) {
            refuse(flag, path, "tensor '" + name + "' has shape " + shape_text(t.shape()) + " with a dimension of " +
                                   std::to_string(d) + ", expected every dimension >= 1");
        }
    }
}

void check_names(const std::string& flag, const std::string& path, const SDStageTensors& tensors,
                 const std::set<std::string>& allowed, const std::string& expected) {
    std::set<std::string> seen;
    for (const auto& [name, t] : tensors) {
        if (!allowed.count(name)) {
            refuse(flag, path, "unexpected tensor '" + name.substr(0, 64) + "', expected " + expected);
        }
        if (!seen.insert(name).second) {
            refuse(flag, path, "tensor '" + name + "' appears twice, expected " + expected);
        }
    }
}

}  // namespace

void check_latent(const std::string& flag, const std::string& path, const std::string& name, const sd::Tensor<float>& t,
                  int64_t want_w, int64_t want_h) {
    const auto& s = t.shape();
    std::string expected = "[" + (want_w > 0 ? std::to_string(want_w) : std::string("W/16")) + ", " +
                           (want_h > 0 ? std::to_string(want_h) : std::string("H/16")) + ", " + std::to_string(LATENT_CHANNELS) +
                           ", 1]";
    bool ok = s.size() == 4 && s[2] == LATENT_CHANNELS && s[3] == 1 && s[0] >= 1 && s[1] >= 1 &&
              s[0] <= MAX_LATENT_SIDE && s[1] <= MAX_LATENT_SIDE && (want_w <= 0 || s[0] == want_w) && (want_h <= 0 || s[1] == want_h);
    if (!ok) {
        std::string why = "tensor '" + name + "' has shape " + shape_text(s) + " (ggml order), expected " + expected;
        if (s.size() == 4 && s[0] >= 1 && s[1] >= 1 && (s[0] > MAX_LATENT_SIDE || s[1] > MAX_LATENT_SIDE)) {
            why += " with sides of at most " + std::to_string(MAX_LATENT_SIDE) + " (" + std::to_string(MAX_LATENT_SIDE * 16) + " pixels)";
        }
        refuse(flag, path, why);
    }
    check_finite(flag, path, name, t);
}

void check_condition(const std::string& flag, const std::string& path, const SDStageTensors& tensors, int64_t context_dim,
                     bool need_uncond) {
    check_names(flag, path, tensors, {"c_crossattn", "uncond_c_crossattn"}, "c_crossattn and uncond_c_crossattn (from llm-encode)");
    bool has_cond = false, has_uncond = false;
    for (const auto& [name, t] : tensors) {
        has_cond   = has_cond || name == "c_crossattn";
        has_uncond = has_uncond || name == "uncond_c_crossattn";
        const auto& s = t.shape();
        check_dims_positive(flag, path, name, t);
        std::string hidden = context_dim > 0 ? std::to_string(context_dim) : std::string("hidden");
        bool ok = (s.size() == 2 || (s.size() == 3 && s[2] == 1)) && (context_dim <= 0 || s[0] == context_dim) &&
                  s[1] <= MAX_CONDITION_TOKENS;
        if (!ok) {
            std::string why = "tensor '" + name + "' has shape " + shape_text(s) + " (ggml order), expected [" + hidden +
                              ", tokens] with at most " + std::to_string(MAX_CONDITION_TOKENS) + " tokens";
            if (context_dim > 0 && s.size() >= 2 && s[0] != context_dim) {
                why += " (the diffusion model's context size is " + std::to_string(context_dim) +
                       ": encode with the text encoder that belongs to it)";
            }
            refuse(flag, path, why);
        }
        check_finite(flag, path, name, t);
    }
    if (!has_cond) {
        refuse(flag, path, "no tensor 'c_crossattn', expected the conditioning llm-encode writes");
    }
    if (need_uncond && !has_uncond) {
        throw StageError(EXIT_BAD_INPUT, flag + " '" + path + "' has no negative-prompt conditioning, " +
                                             "which --cfg-scale != 1 needs: run llm-encode with the same --cfg-scale");
    }
}

void check_ref_latents(const std::string& flag, const std::string& path, const SDStageTensors& tensors) {
    std::set<std::string> names;
    for (size_t i = 0; i < tensors.size() && i < MAX_REF_LATENTS; i++) {
        names.insert("ref_" + std::to_string(i));
    }
    if (tensors.size() > MAX_REF_LATENTS) {
        refuse(flag, path, std::to_string(tensors.size()) + " reference latents, expected at most " + std::to_string(MAX_REF_LATENTS));
    }
    check_names(flag, path, tensors, names, "ref_0, ref_1, ... in order (from vae-encode -r)");
    for (size_t i = 0; i < tensors.size(); i++) {
        if (tensors[i].first != "ref_" + std::to_string(i)) {
            refuse(flag, path, "tensor '" + tensors[i].first + "' at position " + std::to_string(i) + ", expected ref_" + std::to_string(i));
        }
        check_latent(flag, path, tensors[i].first, tensors[i].second, -1, -1);
    }
}

int64_t dit_context_dim(const std::string& model_path) {
    ModelLoader loader;
    if (!loader.init_from_file(model_path, "")) {
        return 0;
    }
    for (const auto& [name, storage] : loader.get_tensor_storage_map()) {
        if (name.size() >= 13 && name.compare(name.size() - 13, 13, "txt_in.weight") == 0) {
            return storage.ne[0];
        }
    }
    return 0;  // not a FLUX-style DiT: the shape check is left to the model
}

}  // namespace stage
