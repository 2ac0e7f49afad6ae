/* Carving one allocation into the wavefront's arrays, for host and device
 * memory alike (only pointer arithmetic happens here). */
#ifndef PW_WAVEFRONT_LAYOUT_H
#define PW_WAVEFRONT_LAYOUT_H

#include <stddef.h>

#include "backend/wavefront/wavefront.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes per path slot, shadow records included. */
size_t pw_wave_bytes_per_path(uint32_t shadows_per_path);
/* Total bytes for cap paths, every array aligned to 256 bytes. */
size_t pw_wave_bytes(uint32_t cap, uint32_t shadows_per_path);
/* Points every array of *w into base (pw_wave_bytes of memory). */
void pw_wave_carve(pw_wave *w, void *base, uint32_t cap, uint32_t shadows_per_path);
/* Whether any path of s can make a shadow ray under the given light mode. */
int pw_wave_casts_shadows(const pw_scene_view *s, uint32_t light_mode);
/* Shadow rays one path can make per bounce under the given light mode. */
uint32_t pw_wave_shadows_per_path(const pw_scene_view *s, uint32_t light_mode);
/* Path slots a wavefront wants for an image of npix pixels: room for
 * several samples of every pixel, up to max_paths (no more than 32 samples),
 * or one sample of every pixel's split children. */
uint32_t pw_wave_wanted_paths(uint32_t npix, uint32_t split, uint32_t max_paths);
/* How the next wave is filled from cap slots with spp_left samples to go:
 * with room for every pixel and no splitting, *samples of every pixel, the
 * samples left spread evenly over the fewest waves; otherwise one sample of
 * *pixels pixels, at most cap / split of them, so that a split wave has a
 * slot for every child (pw_wf_child_slot). */
void pw_wave_plan(uint32_t cap, uint32_t npix, uint32_t split, uint32_t spp_left, uint32_t *pixels,
                  uint32_t *samples);
/* The pixels of the first of two half waves that a frame of one wave is
 * cut into (the GPU's two wave slots): half the rows, rounded up to a
 * multiple of the camera tiles' height (PW_WF_TILE_H), so that both halves
 * are whole rows of tiles where the first is; every pixel (no cut) for an
 * image of at most PW_WF_TILE_H rows. */
uint32_t pw_wave_half_pixels(uint32_t width, uint32_t height);

#ifdef __cplusplus
}
#endif
#endif
