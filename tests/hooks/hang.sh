#!/bin/sh
# Starts a sleeping child, writes its pid to ./child.pid, then hangs.
sleep 300 &
echo $! > child.pid
sleep 300
