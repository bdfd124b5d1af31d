#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest job for the KVM probe boot: reaching it proves the guest boots.
echo "probe: $(uname -r) up after $(cut -d' ' -f1 /proc/uptime)s"
