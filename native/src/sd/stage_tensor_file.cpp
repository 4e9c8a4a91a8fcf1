// Tensor files, model probing and the debug dump of the staged API (stage_api.h).

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#ifdef _WIN32
#include <io.h>
#define sd_stage_fsync(fd) _commit(fd)
#define sd_stage_fileno(f) _fileno(f)
#else
#include <unistd.h>
#define sd_stage_fsync(fd) fsync(fd)
#define sd_stage_fileno(f) fileno(f)
#endif

#include "model.h"
#include "stage_api.h"
#include "util.h"

namespace {

constexpr int32_t TENSOR_TYPE_F32   = 0;
constexpr int32_t TENSOR_MAX_DIMS   = 4;
constexpr int32_t TENSOR_MAX_NAME   = 4096;

bool fail(std::string* error, const std::string& message) {
    if (error != nullptr) {
        *error = message;
    }
    return false;
}

}  // namespace

bool sd_stage_write_tensor_file(const std::string& path, const SDStageTensors& tensors, std::string* error) {
    namespace fs      = std::filesystem;
    fs::path target   = fs::u8path(path);
    fs::path tmp_path = target;
    tmp_path += ".tmp" + std::to_string(static_cast<long long>(std::rand()));

    FILE* f = std::fopen(tmp_path.string().c_str(), "wb");
    if (f == nullptr) {
        return fail(error, "cannot write '" + path + "': " + std::strerror(errno) +
                               " (make the folder exist and writable)");
    }
    bool ok = true;
    for (const auto& [name, tensor] : tensors) {
        const auto& shape = tensor.shape();
        int32_t header[3] = {static_cast<int32_t>(shape.size()), static_cast<int32_t>(name.size()), TENSOR_TYPE_F32};
        ok                = ok && std::fwrite(header, sizeof(int32_t), 3, f) == 3;
        for (int64_t dim : shape) {
            int32_t d = static_cast<int32_t>(dim);
            ok        = ok && std::fwrite(&d, sizeof(d), 1, f) == 1;
        }
        ok = ok && std::fwrite(name.data(), 1, name.size(), f) == name.size();
        size_t n = static_cast<size_t>(tensor.numel());
        ok       = ok && (n == 0 || std::fwrite(tensor.data(), sizeof(float), n, f) == n);
    }
    ok = ok && std::fflush(f) == 0;
    ok = ok && sd_stage_fsync(sd_stage_fileno(f)) == 0;
    int saved_errno = errno;
    ok              = (std::fclose(f) == 0) && ok;
    std::error_code ec;
    if (ok) {
        fs::rename(tmp_path, target, ec);
        if (!ec) {
            return true;
        }
        saved_errno = ec.value();
    }
    fs::remove(tmp_path, ec);
    return fail(error, "cannot write '" + path + "': " + std::strerror(saved_errno) + " (free disk space or choose another folder)");
}

bool sd_stage_read_tensor_file(const std::string& path, SDStageTensors* tensors, std::string* error) {
    tensors->clear();
    FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
        return fail(error, "cannot read tensor file '" + path + "': " + std::strerror(errno));
    }
    std::fseek(f, 0, SEEK_END);
    long long remaining = std::ftell(f);
    std::fseek(f, 0, SEEK_SET);
    auto bad = [&](const std::string& what) {
        std::fclose(f);
        tensors->clear();
        return fail(error, "tensor file '" + path + "' is " + what + " (re-run the stage that writes it)");
    };
    if (remaining == 0) {
        return bad("empty");
    }
    while (remaining > 0) {
        int32_t header[3];
        if (remaining < static_cast<long long>(sizeof(header)) || std::fread(header, sizeof(int32_t), 3, f) != 3) {
            return bad("truncated (incomplete header)");
        }
        remaining -= sizeof(header);
        int32_t n_dims = header[0], name_len = header[1], type = header[2];
        if (n_dims < 1 || n_dims > TENSOR_MAX_DIMS || name_len < 0 || name_len > TENSOR_MAX_NAME) {
            return bad("not a tensor file (bad header)");
        }
        if (type != TENSOR_TYPE_F32) {
            return bad("of ggml type " + std::to_string(type) + ", expected 0 (f32)");
        }
        std::vector<int64_t> shape(static_cast<size_t>(n_dims));
        long long numel = 1;
        for (int i = 0; i < n_dims; i++) {
            int32_t dim = 0;
            if (remaining < 4 || std::fread(&dim, sizeof(dim), 1, f) != 1) {
                return bad("truncated (incomplete shape)");
            }
            remaining -= 4;
            if (dim < 0 || (dim > 0 && numel > remaining / 4 / dim + 1)) {
                return bad("truncated or corrupt (shape larger than the file)");
            }
            shape[static_cast<size_t>(i)] = dim;
            numel *= dim;
        }
        std::string name(static_cast<size_t>(name_len), '\0');
        if (remaining < name_len || (name_len > 0 && std::fread(name.data(), 1, name_len, f) != static_cast<size_t>(name_len))) {
            return bad("truncated (incomplete name)");
        }
        remaining -= name_len;
        if (remaining < numel * 4) {
            return bad("truncated (tensor '" + name + "' needs " + std::to_string(numel * 4) + " bytes, " +
                       std::to_string(remaining) + " left)");
        }
        sd::Tensor<float> tensor(shape);
        if (numel > 0 && std::fread(tensor.data(), sizeof(float), static_cast<size_t>(numel), f) != static_cast<size_t>(numel)) {
            return bad("truncated (short read)");
        }
        remaining -= numel * 4;
        tensors->emplace_back(std::move(name), std::move(tensor));
    }
    std::fclose(f);
    return true;
}

std::string sd_stage_probe_model_kind(const char* path) {
    ModelLoader loader;
    if (!loader.init_from_file(path, "")) {
        return "";
    }
    bool diffusion = false, llm = false, vae = false;
    for (const auto& [name, storage] : loader.get_tensor_storage_map()) {
        if (name.find("double_blocks.") != std::string::npos || name.find("single_blocks.") != std::string::npos ||
            name.find("double_stream_modulation_img") != std::string::npos || name.find("input_blocks.") != std::string::npos ||
            name.find("transformer_blocks.") != std::string::npos) {
            diffusion = true;
        } else if (name.find("decoder.conv_in.weight") != std::string::npos || name.find("encoder.conv_in.weight") != std::string::npos) {
            vae = true;
        } else if (name.find("embed_tokens") != std::string::npos || name.find("token_embd") != std::string::npos ||
                   name.find("blk.0.attn_q") != std::string::npos || name.find("layers.0.self_attn") != std::string::npos) {
            llm = true;
        }
    }
    if (diffusion + llm + vae != 1) {
        return diffusion ? "diffusion" : "unknown";  // a full checkpoint counts as a diffusion model
    }
    return diffusion ? "diffusion" : (llm ? "llm" : "vae");
}
