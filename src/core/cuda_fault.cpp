#include "core/cuda_fault.hpp"

#include <atomic>
#include <charconv>

namespace fs {

namespace {
std::atomic<int> g_site{static_cast<int>(CudaFaultSite::None)};
std::atomic<long long> g_at{1};
std::atomic<long long> g_count{0};
std::atomic<bool> g_broken{false};
}  // namespace

std::optional<CudaFault> parse_cuda_fault(std::string_view spec) {
    CudaFault f;
    const std::string_view name = spec.substr(0, spec.find(':'));
    if (name == "init") f.site = CudaFaultSite::Init;
    else if (name == "alloc") f.site = CudaFaultSite::Alloc;
    else if (name == "launch") f.site = CudaFaultSite::Launch;
    else return std::nullopt;
    if (name.size() == spec.size()) return f;
    if (f.site == CudaFaultSite::Init) return std::nullopt;  // init happens once: no count
    const std::string_view count = spec.substr(name.size() + 1);
    const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), f.at);
    if (ec != std::errc() || end != count.data() + count.size() || f.at < 1) return std::nullopt;
    return f;
}

void set_cuda_fault(const CudaFault& fault) {
    g_at = fault.at;
    g_count = 0;
    g_broken = false;
    g_site = static_cast<int>(fault.site);
}

namespace cuda_detail {

bool fault_now(CudaFaultSite site) {
    if (g_site.load() != static_cast<int>(site)) return false;
    if (++g_count != g_at.load()) return false;
    if (site == CudaFaultSite::Launch) g_broken = true;
    return true;
}

bool context_broken() { return g_broken.load(); }

}  // namespace cuda_detail

}  // namespace fs
