# Toolchain for the Windows (x86_64) engine cross-built on Linux with Debian's mingw-w64
# (g++-mingw-w64-x86-64-posix: the posix thread model, which std::thread and OpenMP need).
# Used by `python native/build.py --target windows`; see native/README.md.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(_stepwise_prefix x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${_stepwise_prefix}-gcc-posix)
set(CMAKE_CXX_COMPILER ${_stepwise_prefix}-g++-posix)
set(CMAKE_RC_COMPILER ${_stepwise_prefix}-windres)
set(CMAKE_AR ${_stepwise_prefix}-gcc-ar-posix CACHE FILEPATH "")
set(CMAKE_RANLIB ${_stepwise_prefix}-gcc-ranlib-posix CACHE FILEPATH "")

# Headers and libraries come from the mingw sysroot only (never /usr/include); build tools
# (glslc, the host compiler for ggml's shader generator) from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${_stepwise_prefix})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# One self-contained exe: no libgcc_s / libstdc++ / libwinpthread / libgomp DLLs beside it
# (a missing DLL makes Windows refuse to start it, status c0000135).
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static -static-libgcc -static-libstdc++")
