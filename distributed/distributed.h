#pragma once
// Everything in distributed/: stores, process groups (Gloo), init from the environment,
// DistributedDataParallel.
#include "ember/distributed/coalesced.h"
#include "ember/distributed/distributed_data_parallel.h"
#include "ember/distributed/error.h"
#include "ember/distributed/file_store.h"
#include "ember/distributed/init.h"
#include "ember/distributed/process_group.h"
#include "ember/distributed/process_group_gloo.h"
#include "ember/distributed/reducer.h"
#include "ember/distributed/store.h"
#include "ember/distributed/tcp_store.h"
#include "ember/distributed/work.h"
