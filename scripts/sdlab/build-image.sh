#!/bin/bash
# The project's copy of ../shared/sdlab/build-image.sh (nothing under ../shared changes): the same image plus
# Debian's postgresql, so scripts/sdlab/sync.sh can exercise heartd-sync.service against a real PostgreSQL on the
# guest's loopback. scripts/sdlab-test.sh runs it with HRLAB_DIR=<cache>/hrlab/pg, so this image lives in
# <cache>/hrlab/pg/sd (where ../shared/sdlab/run.sh looks for it) beside the shared one, and like the original it
# is rebuilt only when its inputs (this script, the shared units) change: a fresh CI machine builds it once.
# Differences from the original: PACKAGES gains postgresql; SDLAB (the units) defaults to ../shared/sdlab.
#
# Build the systemd-booted Debian 12 (bookworm) VM image of the heart-rate lab ("sdlab").
# Variant of the lab's build-image.sh (lab/ in this repo): same kernel, bluez 5.66, btvirt,
# python3-dbus and tiny initrd, but PID 1 is systemd (systemd + systemd-sysv + udev + dbus),
# and a few hrlab-* units bring up the virtual controllers, the peripheral and the scenario.
#
#   sudo env HRLAB_DIR="$HOME/.cache/hrlab" ./build-image.sh          # build if inputs changed
#   sudo env HRLAB_DIR="$HOME/.cache/hrlab" ./build-image.sh --force  # rebuild unconditionally
#
# Output: $HRLAB_DIR/sd/{rootfs.img,vmlinuz,initrd.img,initrd-debian.img,image.stamp,packages.txt}
# (the lab's own image in $HRLAB_DIR is never touched).
#
# The hrlab-* units (guest/units/) are baked into the image (their content is part of the hash);
# the scripts they run (guest/*.sh, peripheral.py) come from the 9p share /lab at boot, so they
# can change without a rebuild.
set -euo pipefail

SDLAB=${SDLAB:-$(cd "$(dirname "$0")/../../../shared/sdlab" && pwd)}
HRLAB_DIR=${HRLAB_DIR:-${XDG_CACHE_HOME:-${HOME:?HOME is not set: set HRLAB_DIR}/.cache}/hrlab}
IMGDIR="$HRLAB_DIR/sd"
MIRROR=${MIRROR:-http://deb.debian.org/debian}
SECMIRROR=${SECMIRROR:-http://deb.debian.org/debian-security}
IMG_SIZE=${IMG_SIZE:-3G}
FORCE=0
[ "${1:-}" = "--force" ] && FORCE=1

# The lab's package list plus systemd as init. udev is what a real system has (it tags
# bluetooth devices with SYSTEMD_WANTS=bluetooth.target). passwd (userdel/groupdel, used by
# uninstall.sh) and util-linux (setpriv, runuser) are in minbase anyway. binutils: install.sh strips the binaries
# and keeps their debug info with objcopy (a machine that builds heartd has it for the linker).
PACKAGES=(
  linux-image-amd64 initramfs-tools kmod
  systemd systemd-sysv udev dbus passwd adduser
  bluez bluez-test-tools
  python3 python3-dbus python3-gi
  libdbus-1-3 libsqlite3-0 libsystemd0 libstdc++6 zlib1g
  procps psmisc coreutils util-linux binutils
  busybox-static cpio
  postgresql
)

# Units masked for a fast, quiet boot under TCG (no login, no periodic jobs, no first-boot work).
MASK=(
  getty@.service serial-getty@.service console-getty.service getty-static.service
  apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer e2scrub_reap.service
  fstrim.timer systemd-tmpfiles-clean.timer
  systemd-hwdb-update.service ldconfig.service systemd-journal-catalog-update.service
  systemd-firstboot.service systemd-pstore.service
)

SCRIPT_HASH=$( { grep -v -e '^[[:space:]]*#' -e '^HRLAB_DIR=' "$0"; cat "$SDLAB"/guest/units/*; } | sha256sum | cut -c1-16)
STAMP="bookworm|${PACKAGES[*]}|${MASK[*]}|$IMG_SIZE|$SCRIPT_HASH"

if [ $FORCE = 0 ] && [ -f "$IMGDIR/image.stamp" ] && [ "$(cat "$IMGDIR/image.stamp")" = "$STAMP" ] \
   && [ -f "$IMGDIR/rootfs.img" ] && [ -f "$IMGDIR/vmlinuz" ] && [ -f "$IMGDIR/initrd.img" ]; then
  echo "build-image: image up to date in $IMGDIR (use --force to rebuild)"
  exit 0
fi

[ "$(id -u)" = 0 ] || { echo "build-image: must run as root" >&2; exit 1; }
if ! command -v mmdebstrap >/dev/null || ! command -v mkfs.ext4 >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends mmdebstrap e2fsprogs \
    || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends mmdebstrap e2fsprogs; }
fi

T0=$(date +%s)
mkdir -p "$IMGDIR"
ROOT="$IMGDIR/rootfs"
rm -rf "$ROOT" "$IMGDIR/rootfs.img.tmp"
mkdir -p "$ROOT"
INCLUDE=$(IFS=,; echo "${PACKAGES[*]}")

# Everything the customize hook writes, staged here (the hook runs outside the chroot).
STAGE="$IMGDIR/stage"
rm -rf "$STAGE"; mkdir -p "$STAGE"
cp "$SDLAB"/guest/units/*.service "$STAGE/"
cat > "$STAGE/fstab" <<'EOF'
/dev/vda / ext4 rw,relatime 0 1
# 9p shares from run.sh (tags: lab = this sdlab folder, out = output folder, host = binaries,
# src = the project checkout). host and src are optional (nofail).
lab  /lab  9p trans=virtio,version=9p2000.L,msize=262144,ro 0 0
out  /out  9p trans=virtio,version=9p2000.L,msize=262144 0 0
host /host 9p trans=virtio,version=9p2000.L,msize=262144,ro,nofail 0 0
src  /src  9p trans=virtio,version=9p2000.L,msize=262144,ro,nofail 0 0
EOF
printf '9pnet_virtio\n9p\n' > "$STAGE/9p.conf"
# TCG is slow: generous limits for systemd itself (not for heartd.service, which keeps its own
# and the default TimeoutStartSec=90s).
cat > "$STAGE/system-hrlab.conf" <<'EOF'
[Manager]
DefaultTimeoutStopSec=30s
DefaultDeviceTimeoutSec=60s
EOF
cat > "$STAGE/journald-hrlab.conf" <<'EOF'
[Journal]
Storage=volatile
RateLimitBurst=100000
EOF

mmdebstrap --variant=minbase --mode=root \
  --include="$INCLUDE" \
  --customize-hook='echo hrlab-sd > "$1/etc/hostname"' \
  --customize-hook='cp '"$STAGE"'/fstab "$1/etc/fstab"; mkdir -p "$1/lab" "$1/out" "$1/host" "$1/src"' \
  --customize-hook='install -D -m 0644 '"$STAGE"'/9p.conf "$1/etc/modules-load.d/9p.conf"' \
  --customize-hook='install -D -m 0644 '"$STAGE"'/system-hrlab.conf "$1/etc/systemd/system.conf.d/hrlab.conf"' \
  --customize-hook='install -D -m 0644 '"$STAGE"'/journald-hrlab.conf "$1/etc/systemd/journald.conf.d/hrlab.conf"' \
  --customize-hook='cp '"$STAGE"'/hrlab-*.service "$1/etc/systemd/system/"' \
  --customize-hook='chroot "$1" systemctl enable hrlab-btvirt.service hrlab-btmon.service hrlab-peripheral.service hrlab-scenario.service' \
  --customize-hook='chroot "$1" systemctl enable bluetooth.service' \
  --customize-hook='chroot "$1" systemctl mask '"${MASK[*]}"' >/dev/null 2>&1 || true' \
  --customize-hook='rm -f "$1/etc/machine-id"; chroot "$1" systemd-machine-id-setup' \
  --customize-hook='rm -f "$1"/var/cache/apt/archives/*.deb "$1"/var/lib/apt/lists/*_Packages' \
  bookworm "$ROOT" \
  "deb $MIRROR bookworm main" \
  "deb $MIRROR bookworm-updates main" \
  "deb $SECMIRROR bookworm-security main"

T1=$(date +%s)
cp -L "$ROOT/vmlinuz" "$IMGDIR/vmlinuz"
cp -L "$ROOT/initrd.img" "$IMGDIR/initrd-debian.img"

# Tiny initramfs (same as the lab's): insmod virtio + ext4, mount /dev/vda rw, switch_root to
# the init= from the kernel command line (run.sh passes init=/lib/systemd/systemd).
cat > "$ROOT/tmp/mkmini.sh" <<'MINI'
set -e
K=$(ls /lib/modules | head -1)
M=/lib/modules/$K
W=/tmp/mini; rm -rf "$W"; mkdir -p $W/bin $W/proc $W/sys $W/dev $W/newroot $W/lib/modules
cp /bin/busybox $W/bin/busybox
MODS="kernel/drivers/virtio/virtio_ring.ko kernel/drivers/virtio/virtio.ko
 kernel/drivers/virtio/virtio_pci_legacy_dev.ko kernel/drivers/virtio/virtio_pci_modern_dev.ko
 kernel/drivers/virtio/virtio_pci.ko kernel/drivers/block/virtio_blk.ko
 kernel/lib/crc16.ko kernel/fs/mbcache.ko kernel/crypto/crc32c_generic.ko kernel/fs/jbd2/jbd2.ko kernel/fs/ext4/ext4.ko"
: > $W/modules.order
for m in $MODS; do cp $M/$m $W/lib/modules/; basename $m >> $W/modules.order; done
printf '%s\n' \
 '#!/bin/busybox sh' \
 'B=/bin/busybox' \
 '$B mount -t proc proc /proc; $B mount -t sysfs sys /sys; $B mount -t devtmpfs dev /dev' \
 'for m in $($B cat /modules.order); do $B insmod /lib/modules/$m || echo "mini-initrd: insmod $m failed"; done' \
 'i=0; while [ ! -b /dev/vda ] && [ $i -lt 400 ]; do $B usleep 25000; i=$((i+1)); done' \
 '$B mount -t ext4 -o rw /dev/vda /newroot || { echo "mini-initrd: cannot mount /dev/vda"; $B sh; }' \
 'INIT=/lib/systemd/systemd' \
 'for a in $($B cat /proc/cmdline); do case $a in init=*) INIT=${a#init=};; esac; done' \
 '$B mount --move /dev /newroot/dev; $B umount /proc /sys' \
 'exec $B switch_root /newroot $INIT' > $W/init
chmod 755 $W/init
cd $W && find . | cpio -o -H newc --quiet > /tmp/initrd-mini.img
MINI
chroot "$ROOT" /bin/bash /tmp/mkmini.sh
mv "$ROOT/tmp/initrd-mini.img" "$IMGDIR/initrd.img"
rm -rf "$ROOT/tmp/mini" "$ROOT/tmp/mkmini.sh"

truncate -s "$IMG_SIZE" "$IMGDIR/rootfs.img.tmp"
mkfs.ext4 -q -F -L hrlab-sd -d "$ROOT" "$IMGDIR/rootfs.img.tmp"
mv "$IMGDIR/rootfs.img.tmp" "$IMGDIR/rootfs.img"
dpkg-query --admindir="$ROOT/var/lib/dpkg" -W -f='${Package} ${Version}\n' > "$IMGDIR/packages.txt"
rm -rf "$ROOT" "$STAGE"
echo "$STAMP" > "$IMGDIR/image.stamp"
T2=$(date +%s)
echo "build-image: done in $((T2-T0)) s (mmdebstrap $((T1-T0)) s, ext4 image $((T2-T1)) s)"
echo "build-image: $(grep -E '^(linux-image-[0-9]|systemd |bluez |dbus )' "$IMGDIR/packages.txt" | tr '\n' ' ')"
ls -lhs "$IMGDIR"/rootfs.img "$IMGDIR"/vmlinuz "$IMGDIR"/initrd.img
