#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs every Debian package that building and testing sluice needs (the
# tests render `sluice run --svg` with librsvg2-bin's rsvg-convert; `sluice
# render` writes PNG through libpng, so the tools need libpng-dev, and the
# packer decodes textures through libpng and libjpeg-turbo's libjpeg API,
# libjpeg62-turbo-dev (the API with error managers and a progress hook,
# which the decoder needs to refuse bad files; found by CMake's FindJPEG),
# and encodes texture tiles into GPU block formats through libsquish-dev
# (BC1, BC3) and libastcenc-dev (ARM's astc-encoder: ASTC 4x4, 6x6, 8x8),
# both C++ libraries behind tools/pack/texture/encode_*.cpp; `sluice
# bench codec` measures against gltfpack -cc followed by the lz4 tool), and
# nothing when they are already there (idempotent). Run as root on Debian 12.
#
#   scripts/deps.sh            native build, sanitizers, tools
#   scripts/deps.sh --cross    also the aarch64 and armhf cross builds (qemu-user)
#                              and the bare-metal image (arm-none-eabi-gcc,
#                              newlib, qemu-system-arm)
set -euo pipefail

native=(build-essential cmake ninja-build pkg-config clang libclang-rt-14-dev
        liblz4-dev libxxhash-dev libcmocka-dev libcjson-dev libmeshoptimizer-dev
        cppcheck clang-tidy clang-format valgrind qemu-user python3
        libvulkan-dev libvulkan-volk-dev mesa-vulkan-drivers vulkan-validationlayers glslc
        librsvg2-bin libpng-dev libjpeg62-turbo-dev libsquish-dev libastcenc-dev
        gltfpack lz4)
# The cross builds run the Vulkan tests too, on lavapipe under qemu: the
# loader, lavapipe and the validation layer of each architecture (volk is
# Architecture: all, glslc runs on the host).
arm64=(crossbuild-essential-arm64 liblz4-dev:arm64 libxxhash-dev:arm64 libcmocka-dev:arm64
       libcjson-dev:arm64 libmeshoptimizer-dev:arm64
       libvulkan-dev:arm64 mesa-vulkan-drivers:arm64 vulkan-validationlayers:arm64 libpng-dev:arm64
       libjpeg62-turbo-dev:arm64 libsquish-dev:arm64 libastcenc-dev:arm64)
armhf=(crossbuild-essential-armhf liblz4-dev:armhf libxxhash-dev:armhf libcmocka-dev:armhf
       libcjson-dev:armhf libmeshoptimizer-dev:armhf
       libvulkan-dev:armhf mesa-vulkan-drivers:armhf vulkan-validationlayers:armhf libpng-dev:armhf
       libjpeg62-turbo-dev:armhf libsquish-dev:armhf libastcenc-dev:armhf)

# The bare-metal firmware image (firmware/, toolchains/arm-none-eabi.cmake):
# the compiler, newlib (its string functions; the image has its own start-up
# and semihosting) and the machine it runs on. qemu-system-arm's
# Recommends (firmware ROMs, for its network cards) are not needed: the
# test runs it with -nic none.
baremetal=(gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm)

want=("${native[@]}")
if [[ "${1:-}" == "--cross" ]]; then
    want+=("${arm64[@]}" "${armhf[@]}" "${baremetal[@]}")
fi

# True when package $1 is fully installed. A name without an architecture
# means the native one (once foreign architectures are added, a plain name
# matches every architecture's copy); Architecture: all packages have none.
installed() {
    local p=$1
    if [[ $p != *:* && "$(dpkg-query -W -f='${Architecture}' "$p" 2>/dev/null)" != "all" ]]; then
        p="$p:$(dpkg --print-architecture)"
    fi
    [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" == "install ok installed" ]]
}

missing=()
for p in "${want[@]}"; do
    installed "$p" || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "deps: installing ${missing[*]}" >&2
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
if [[ "${1:-}" == "--cross" ]]; then
    for a in arm64 armhf; do
        dpkg --print-foreign-architectures | grep -qx "$a" || $SUDO dpkg --add-architecture "$a"
    done
fi
export DEBIAN_FRONTEND=noninteractive
# A mirror caught mid-sync fails one index (apt-get update exits non-zero
# with "File has unexpected size"): try again, then go on with the lists
# that did arrive.
updated=0
for try in 1 2 3; do
    if $SUDO apt-get update -qq; then
        updated=1
        break
    fi
    echo "deps: apt-get update failed (try $try of 3)" >&2
    [[ $try -lt 3 ]] && sleep 20
done
if $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
    exit 0
fi
[[ $updated -eq 1 ]] && exit 1
# The install failed with an index missing: where it is the security
# suite's of one foreign architecture, that architecture's libraries exist
# only at the release's versions, while Multi-Arch: same libraries must
# have one version on every architecture. Install once more taking every
# package from the release and its updates (the security suite ignored
# for this one call, native copies downgraded to match); nothing is
# pinned beyond this call.
echo "deps: install failed with incomplete package lists; retrying at the release's versions" >&2
prefs=$(mktemp)
trap 'rm -f "$prefs"' EXIT
cat > "$prefs" <<'PREFS'
Package: *
Pin: release l=Debian-Security
Pin-Priority: -1

Package: *
Pin: release n=bookworm-updates
Pin-Priority: 1002

Package: *
Pin: release n=bookworm
Pin-Priority: 1001
PREFS
$SUDO apt-get install -y -qq --no-install-recommends --allow-downgrades -o Dir::Etc::Preferences="$prefs" \
    "${missing[@]}" >/dev/null
