/* SPDX-License-Identifier: MIT */
/* ORNIC_FUZZ=OFF: the harness as a plain program that replays files. */
#include "fuzz_driver.h"

int main(int argc, char **argv) { return fuzz_replay_main(argc, argv); }
