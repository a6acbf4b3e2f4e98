#!/usr/bin/env bash
# Makes target/release/bundle/appimage/Asterism_<version>_amd64.AppImage from the tree
# of the .deb that scripts/bundle.sh built: the app, the `asterism` CLI, the parts in
# usr/lib/Asterism, and WebKitGTK with every library they need but the base system's
# (glibc, the GPU and X11 client libraries, fontconfig/freetype), so it runs where
# WebKitGTK is not installed.
#
# Why not the Tauri bundler: its AppImage step downloads AppRun and linuxdeploy from
# GitHub, which this project's machines cannot reach. This does what those do:
#   - libraries are found through RUNPATH ($ORIGIN), not LD_LIBRARY_PATH, so the
#     programs the app starts (xdg-open, the agent's shell) see the host's libraries;
#   - libwebkit2gtk's compiled-in "/usr" becomes "././" (same length), so it starts
#     its WebKitWebProcess/WebKitNetworkProcess from the AppImage: AppRun runs the app
#     from the AppDir's usr/ folder;
#   - the runtime is AppImageKit's type-2 runtime (MIT), from the `appimage` crate on
#     crates.io (scripts/install-deps.sh puts it in .deps/appimage/).
# `Asterism.AppImage asterism ARGS` (or a link to it named `asterism`) runs the CLI.
set -euo pipefail
cd "$(dirname "$0")/.."

deb="$(ls -t target/release/bundle/deb/*.deb | head -1)"
tree="${deb%.deb}/data"
version="$(dpkg-deb -f "$deb" Version)"
out=target/release/bundle/appimage
appdir="$out/Asterism.AppDir"
image="$out/Asterism_${version}_amd64.AppImage"
multiarch="$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)"
system_lib="/usr/lib/$multiarch"
webkit="webkit2gtk-4.1"

rm -rf "$appdir" "$image"
mkdir -p "$appdir/usr/lib/$multiarch/$webkit" "$appdir/usr/lib/gdk-pixbuf/loaders" \
  "$appdir/usr/share/glib-2.0/schemas"
cp -a "$tree/usr/." "$appdir/usr/"
cp -a "$system_lib/$webkit/WebKitWebProcess" "$system_lib/$webkit/WebKitNetworkProcess" \
  "$system_lib/$webkit/WebKitGPUProcess" "$system_lib/$webkit/injected-bundle" \
  "$appdir/usr/lib/$multiarch/$webkit/"
cp -a "$system_lib"/gdk-pixbuf-2.0/2.10.0/loaders/*.so "$appdir/usr/lib/gdk-pixbuf/loaders/"
cp /usr/share/glib-2.0/schemas/gschemas.compiled "$appdir/usr/share/glib-2.0/schemas/"

# Libraries the host must provide: glibc, the C++ runtime, the GPU stack, X11/XCB
# and fonts (they must match the host's drivers, server and configuration).
base='^(ld-linux.*|lib(c|m|mvec|dl|pthread|rt|resolv|util|anl|nsl|BrokenLocale)\.so.*|libgcc_s\.so.*|libstdc\+\+\.so.*|lib(GL|GLX|GLdispatch|GLESv2|EGL|OpenGL|gbm|drm|glapi)\.so.*|libX11(-xcb)?\.so.*|libxcb.*|libXau\.so.*|libXdmcp\.so.*|lib(fontconfig|freetype|harfbuzz)\.so.*|libasound\.so.*|libz\.so.*|libexpat\.so.*|libudev\.so.*)$'

# Every ELF file of the AppDir, and the non-base libraries they load, copied flat into
# usr/lib until nothing new is needed.
elves() { find "$appdir" -type f \( -name '*.so*' -o -perm -u+x \) -exec sh -c \
  'head -c4 "$1" | grep -q ELF && echo "$1"' _ {} \; ; }
while :; do
  added=0
  while read -r soname path; do
    [[ "$soname" =~ $base ]] && continue
    [ -e "$appdir/usr/lib/$soname" ] && continue
    cp -L "$path" "$appdir/usr/lib/$soname"
    added=1
  done < <(elves | xargs -r ldd 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u)
  [ "$added" = 1 ] || break
done

# RUNPATH: each file looks for libraries in usr/lib, relative to where it is.
while read -r file; do
  dir="$(dirname "${file#"$appdir"/usr/}")"
  up="$(echo "$dir" | sed -E 's#[^/]+#..#g')"
  patchelf --set-rpath "\$ORIGIN/$up/lib" "$file" 2>/dev/null || true
done < <(elves | grep -v '/usr/lib/Asterism/')
for lib in "$appdir"/usr/lib/lib*.so*; do patchelf --set-rpath '$ORIGIN' "$lib" 2>/dev/null || true; done
sed -i -e 's#/usr#././#g' "$appdir"/usr/lib/libwebkit2gtk-4.1.so.*

# gdk-pixbuf's loader list, with paths relative to usr/ (where AppRun runs the app).
usr="$(cd "$appdir/usr" && pwd)"
GDK_PIXBUF_MODULEDIR="$usr/lib/gdk-pixbuf/loaders" "$system_lib/gdk-pixbuf-2.0/gdk-pixbuf-query-loaders" \
  | sed -e "s#$usr/##" >"$appdir/usr/lib/gdk-pixbuf/loaders.cache"

# Notices: the Debian copyright file of each package a bundled library comes from, and
# the runtime's.
{ dpkg -S $(cd "$appdir/usr/lib" && for lib in lib*.so*; do echo "*/$multiarch/$lib"; done) 2>/dev/null || true; } \
  | cut -d: -f1 | sort -u | while read -r package; do
    mkdir -p "$appdir/usr/share/doc/$package"
    cp "/usr/share/doc/$package/copyright" "$appdir/usr/share/doc/$package/" 2>/dev/null || true
  done
mkdir -p "$appdir/usr/share/doc/appimage-runtime"
cp scripts/appimage/RUNTIME-NOTICE "$appdir/usr/share/doc/appimage-runtime/copyright"

install -m 755 scripts/appimage/AppRun "$appdir/AppRun"
cp "$tree/usr/share/applications/Asterism.desktop" "$appdir/asterism-app.desktop"
cp "$tree/usr/share/icons/hicolor/512x512/apps/asterism-app.png" "$appdir/asterism-app.png"
ln -s asterism-app.png "$appdir/.DirIcon"

# 32 KiB blocks: the app and WebKit read their libraries by page faults, each of which
# decompresses a whole block (cold start to the composer, journey under Xvfb: 1 MiB
# blocks 6.8 s, 128 KiB 2.3-2.7 s, 32 KiB 1.9 s, uncompressed 1.25 s at 2.4 times the size).
mksquashfs "$appdir" "$out/image.squashfs" -root-owned -noappend -comp gzip -b 32K -quiet >/dev/null
cat .deps/appimage/runtime-x86_64 "$out/image.squashfs" >"$image"
rm "$out/image.squashfs"
chmod 755 "$image"
echo "$image ($(du -h "$image" | cut -f1), $(find "$appdir/usr/lib" -maxdepth 1 -name 'lib*.so*' | wc -l) libraries)"
