#!/bin/sh
# Prints the names of its environment variables, sorted, one a line.
cat >/dev/null
env | sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)=.*/\1/p' | sort
