#pragma once
// ember::optim: optimizers with name-keyed state, gradient clipping and lr schedulers.
#include "ember/optim/adagrad.h"
#include "ember/optim/adam.h"
#include "ember/optim/clip_grad.h"
#include "ember/optim/cosine_lr.h"
#include "ember/optim/lr_scheduler.h"
#include "ember/optim/optimizer.h"
#include "ember/optim/plateau.h"
#include "ember/optim/rmsprop.h"
#include "ember/optim/sgd.h"
#include "ember/optim/step_lr.h"
#include "ember/optim/warmup_lr.h"
