/* Locus: moves computation to data. One header that includes every part. */
#ifndef LOCUS_H
#define LOCUS_H

#define LOCUS_VERSION_STRING "0.1.0"
#define LOCUS_VERSION_MAJOR  0
#define LOCUS_VERSION_MINOR  1
#define LOCUS_VERSION_PATCH  0

#include "locus/bounds.h"
#include "locus/dag.h"
#include "locus/dataset.h"
#include "locus/divisible.h"
#include "locus/error.h"
#include "locus/files.h"
#include "locus/flow.h"
#include "locus/heap.h"
#include "locus/kv.h"
#include "locus/locality.h"
#include "locus/log.h"
#include "locus/place.h"
#include "locus/platform.h"
#include "locus/policy.h"
#include "locus/report.h"
#include "locus/result.h"
#include "locus/rng.h"
#include "locus/scenario.h"
#include "locus/sim.h"
#include "locus/task.h"
#include "locus/workload.h"

#endif
