// The FLIP pipeline whole, as each backend instantiates it: the class (flip_pipeline_class.hpp)
// and its stages' bodies, one file per concern. Includes run one way: this header includes the
// stage files, and each stage file includes the class.
#pragma once

#include "solvers/flip/flip_pipeline_class.hpp"
#include "solvers/flip/flip_transfers.hpp"
#include "solvers/flip/flip_pressure_stage.hpp"
#include "solvers/flip/flip_advection.hpp"
