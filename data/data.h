#pragma once
// ember::data: data sets on disk (idx, Fashion-MNIST) and a mini-batch loader that resumes.
#include "ember/data/data_loader.h"
#include "ember/data/fashion_mnist.h"
#include "ember/data/idx.h"
