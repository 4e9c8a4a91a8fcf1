// File helpers: SHA-256, atomic writes, file identity, tensor files with stage errors.

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <sys/stat.h>
#include <sys/types.h>

#ifdef _WIN32
#include <io.h>
#else
#include <unistd.h>
#endif

#include "sd_stage.hpp"

namespace stage {
namespace {

class Sha256 {
public:
    Sha256() { reset(); }

    void update(const uint8_t* data, size_t size) {
        for (size_t i = 0; i < size; i++) {
            block_[block_len_++] = data[i];
            if (block_len_ == 64) {
                compress();
                block_len_ = 0;
            }
        }
        total_bits_ += static_cast<uint64_t>(size) * 8;
    }

    std::string hex() {
        uint64_t bits = total_bits_;
        uint8_t pad   = 0x80;
        update(&pad, 1);
        uint8_t zero = 0;
        while (block_len_ != 56) {
            update(&zero, 1);
        }
        uint8_t len[8];
        for (int i = 0; i < 8; i++) {
            len[i] = static_cast<uint8_t>(bits >> (56 - 8 * i));
        }
        update(len, 8);
        static const char* digits = "0123456789abcdef";
        std::string out;
        for (uint32_t word : h_) {
            for (int shift = 28; shift >= 0; shift -= 4) {
                out += digits[(word >> shift) & 0xf];
            }
        }
        return out;
    }

private:
    static uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

    void reset() {
        static const uint32_t init[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                         0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
        std::memcpy(h_, init, sizeof(h_));
        block_len_  = 0;
        total_bits_ = 0;
    }

    void compress() {
        static const uint32_t k[64] = {
            0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
            0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
            0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
            0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
            0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
            0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
            0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
            0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
        uint32_t w[64];
        for (int i = 0; i < 16; i++) {
            w[i] = (uint32_t(block_[4 * i]) << 24) | (uint32_t(block_[4 * i + 1]) << 16) |
                   (uint32_t(block_[4 * i + 2]) << 8) | uint32_t(block_[4 * i + 3]);
        }
        for (int i = 16; i < 64; i++) {
            uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
            uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i]        = w[i - 16] + s0 + w[i - 7] + s1;
        }
        uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4], f = h_[5], g = h_[6], h = h_[7];
        for (int i = 0; i < 64; i++) {
            uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
            uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
        }
        h_[0] += a, h_[1] += b, h_[2] += c, h_[3] += d, h_[4] += e, h_[5] += f, h_[6] += g, h_[7] += h;
    }

    uint32_t h_[8];
    uint8_t block_[64];
    size_t block_len_;
    uint64_t total_bits_;
};

}  // namespace

std::string sha256_file(const std::string& path) {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
        return "";
    }
    Sha256 sha;
    std::vector<uint8_t> buf(1 << 20);
    size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) {
        sha.update(buf.data(), n);
    }
    std::fclose(f);
    return sha.hex();
}

void write_file_atomic(const std::string& path, const void* data, size_t size, bool durable) {
    namespace fs  = std::filesystem;
    fs::path tmp  = fs::u8path(path);
    tmp          += ".tmp";
    FILE* f       = std::fopen(tmp.string().c_str(), "wb");
    if (f == nullptr) {
        throw StageError(EXIT_WRITE_FAILED, "cannot write '" + path + "': " + std::strerror(errno) +
                                                " (make the folder exist and writable)");
    }
    bool ok = std::fwrite(data, 1, size, f) == size && std::fflush(f) == 0;
#ifdef _WIN32
    ok = ok && (!durable || _commit(_fileno(f)) == 0);
#else
    ok = ok && (!durable || fsync(fileno(f)) == 0);
#endif
    int err = errno;
    ok      = (std::fclose(f) == 0) && ok;
    std::error_code ec;
    if (ok) {
        fs::rename(tmp, fs::u8path(path), ec);
        if (!ec) {
            return;
        }
        err = ec.value();
    }
    fs::remove(tmp, ec);
    throw StageError(EXIT_WRITE_FAILED, "cannot write '" + path + "': " + std::strerror(err) +
                                            " (free disk space or choose another folder)");
}

nlohmann::json file_identity(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    auto size    = fs::file_size(fs::u8path(path), ec);
    double mtime = 0;  // Unix seconds; file_time_type has no portable epoch in C++17
#ifdef _WIN32
    struct _stat64 st;
    if (_stat64(path.c_str(), &st) == 0) {
        mtime = static_cast<double>(st.st_mtime);
    }
#else
    struct stat st;
    if (stat(path.c_str(), &st) == 0) {
        mtime = static_cast<double>(st.st_mtim.tv_sec) + st.st_mtim.tv_nsec * 1e-9;
    }
#endif
    return {{"path", fs::absolute(fs::u8path(path), ec).string()}, {"size", size}, {"mtime", mtime}};
}

SDStageTensors read_tensors(const std::string& path, const std::string& flag) {
    SDStageTensors tensors;
    std::string error;
    if (!sd_stage_read_tensor_file(path, &tensors, &error)) {
        throw StageError(EXIT_BAD_INPUT, flag + ": " + error);
    }
    return tensors;
}

void write_tensors(const std::string& path, const SDStageTensors& tensors) {
    std::string error;
    if (!sd_stage_write_tensor_file(path, tensors, &error)) {
        throw StageError(EXIT_WRITE_FAILED, error);
    }
}

}  // namespace stage
