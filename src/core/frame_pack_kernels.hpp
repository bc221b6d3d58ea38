// The kernel bodies of frame_pack.hpp, one per operation, run by either executor.
#pragma once

#include <cmath>
#include <limits>

#include "core/frame_pack.hpp"
#include "core/hd.hpp"

namespace fs::frame_pack_detail {

FS_HDI double value_at(const void* data, FieldView::Type type, long long k) {
    return type == FieldView::Type::F64 ? static_cast<const double*>(data)[k]
                                        : static_cast<double>(static_cast<const int*>(data)[k]);
}

// The running range of finite values (a reduction's element and its result).
struct Range {
    float lo, hi;
};

template <class Exec>
void pack_positions_with(const Exec& exec, const FieldView& v, float* xyz) {
    const void* data = v.data;
    const FieldView::Type type = v.type;
    const int stride = v.stride, components = v.components;
    exec.parallel_for(v.count, FS_LAMBDA(int i) {
        for (int c = 0; c < 3; ++c)
            xyz[3 * i + c] =
                c < components ? static_cast<float>(value_at(data, type, static_cast<long long>(i) * stride + c)) : 0.0f;
    });
}

template <class Exec>
ScalarRange pack_scalar_with(Exec& exec, const FieldView& f, const FieldView* kind, float* out) {
    const void* data = f.data;
    const FieldView::Type type = f.type;
    const int stride = f.stride, components = f.components;
    const void* kinds = kind ? kind->data : nullptr;
    const FieldView::Type kind_type = kind ? kind->type : FieldView::Type::I32;
    const int kind_stride = kind ? kind->stride : 0;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    exec.parallel_for(f.count, FS_LAMBDA(int i) {
        if (kinds && value_at(kinds, kind_type, static_cast<long long>(i) * kind_stride) != 0.0) {
            out[i] = nan;
            return;
        }
        double v = 0.0;
        if (components == 1) {
            v = value_at(data, type, static_cast<long long>(i) * stride);
        } else {  // a vector field is coloured by its length
            for (int c = 0; c < components; ++c) {
                const double x = value_at(data, type, static_cast<long long>(i) * stride + c);
                v += x * x;
            }
            v = std::sqrt(v);
        }
        out[i] = static_cast<float>(v);
    });
    const float inf = std::numeric_limits<float>::infinity(), big = std::numeric_limits<float>::max();
    const Range r = exec.transform_reduce(
        f.count, Range{inf, -inf},
        FS_LAMBDA(int i) {
            const float v = out[i];
            const bool finite = v >= -big && v <= big;  // false for NaN and the infinities
            return finite ? Range{v, v} : Range{inf, -inf};
        },
        FS_LAMBDA(Range a, Range b) { return Range{a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi}; });
    return r.lo <= r.hi ? ScalarRange{r.lo, r.hi} : ScalarRange{};
}

}  // namespace fs::frame_pack_detail
