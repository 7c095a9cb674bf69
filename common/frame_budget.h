/*
 * frame_budget: how long a frame may take before it is long, when the
 * run was not told otherwise (--budget): one 60 Hz frame. The frames
 * collector finds frames with it and the frames report reads a run that
 * stored no budget with it; neither knows the other, so it lives here.
 */
#ifndef COMMON_FRAME_BUDGET_H
#define COMMON_FRAME_BUDGET_H

#define FRAME_BUDGET_MS 16.7

#endif
