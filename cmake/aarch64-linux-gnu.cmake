# Cross-building prof for arm64 (aarch64) on Debian or Ubuntu, with the
# distribution's cross compiler and the arm64 -dev packages installed
# side by side with the native ones (multiarch): headers in
# /usr/include/aarch64-linux-gnu, libraries and .pc files in
# /usr/lib/aarch64-linux-gnu. scripts/install-deps --arm64 installs them.
#
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
#   cmake --build build-arm64
#
# Where qemu-aarch64 is installed, ctest runs the tests under it; the
# programs they start (prof, the helpers) need binfmt_misc to run
# (qemu-user-binfmt). docs/arm64.md says more.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(PROF_CROSS_TRIPLET aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${PROF_CROSS_TRIPLET}-gcc)
set(CMAKE_CXX_COMPILER ${PROF_CROSS_TRIPLET}-g++)
# find_library and find_path look in the multiarch directories of this
# triplet (/usr/lib/aarch64-linux-gnu), never in the build machine's.
set(CMAKE_LIBRARY_ARCHITECTURE ${PROF_CROSS_TRIPLET})

# pkg-config reads the arm64 .pc files only. Set in the environment, as
# this file is read again for every try_compile and regeneration.
set(ENV{PKG_CONFIG_LIBDIR}
    "/usr/lib/${PROF_CROSS_TRIPLET}/pkgconfig:/usr/share/pkgconfig")
unset(ENV{PKG_CONFIG_PATH})

# Programs (the compiler's helpers, qemu, objcopy) come from the build
# machine; libraries and headers from the target's directories.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)

find_program(PROF_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static)
if(PROF_QEMU_AARCH64)
  # The multiarch libc6:arm64 puts the loader at /lib/ld-linux-aarch64.so.1
  # and the libraries in /lib/aarch64-linux-gnu, so no -L is needed.
  set(CMAKE_CROSSCOMPILING_EMULATOR ${PROF_QEMU_AARCH64})
endif()
