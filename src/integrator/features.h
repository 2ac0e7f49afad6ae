/* Features: what a render needs of the path code, as bits. The renderer
 * derives a render's mask from its scene and settings (pw_features_of);
 * a backend compiles its kernels for a short list of masks, each with the
 * code of the features outside it left out, and runs the first kernel of
 * its list whose mask holds every bit of the render's (pw_features_cover).
 * Light-mode and walk bits name one choice each: a kernel that holds
 * several reads the render's choice at run time. */
#ifndef PW_FEATURES_H
#define PW_FEATURES_H

#include "integrator/render_params.h"
#include "shade/bsdf.h"
#include "shade/scene_view.h"

#define PW_FEAT_SPHERES (1u << 0) /* geometry: spheres */
#define PW_FEAT_TRIANGLES (1u << 1) /* geometry: triangles */
#define PW_FEAT_ALL_KINDS (1u << 2) /* microfacet materials, textures or delta lights (PW_KINDS_ALL) */
#define PW_FEAT_LIGHT_NONE (1u << 3) /* estimator: emission counted where hit */
#define PW_FEAT_LIGHT_TOY (1u << 4) /* estimator: a shadow ray to each sphere light */
#define PW_FEAT_LIGHT_MIS (1u << 5) /* estimator: one light sample, MIS against the BSDF */
#define PW_FEAT_SPLIT (1u << 6) /* ray splitting at the first hit */
#define PW_FEAT_BVH2 (1u << 7) /* walk: the binary BVH */
#define PW_FEAT_BVH4 (1u << 8) /* walk: the 4-wide BVH */
#define PW_FEAT_LIST (1u << 9) /* walk: every sphere, from shared memory */
#define PW_FEAT_GROUPS (1u << 10) /* walk: the sphere groups and their direction maps */
#define PW_FEAT_LIGHTS (PW_FEAT_LIGHT_NONE | PW_FEAT_LIGHT_TOY | PW_FEAT_LIGHT_MIS)
#define PW_FEAT_WALKS (PW_FEAT_BVH2 | PW_FEAT_BVH4 | PW_FEAT_LIST | PW_FEAT_GROUPS)
#define PW_FEAT_EVERY ((PW_FEAT_GROUPS << 1) - 1u) /* every bit above: a kernel for any render */

/* What a kernel compiled for mask F fixes at compile time: its material
 * kinds, and its light mode where the mask holds exactly one (else any,
 * the caller's value for "read at run time"). */
#define PW_FEAT_KINDS(F) ((F) & PW_FEAT_ALL_KINDS ? PW_KINDS_ALL : PW_KINDS_BASIC)
#define PW_FEAT_LIGHT_MODE(F, any)                                                                                 \
    (((F) & PW_FEAT_LIGHTS) == PW_FEAT_LIGHT_TOY    ? (int)PW_LIGHT_MODE_TOY                                       \
     : ((F) & PW_FEAT_LIGHTS) == PW_FEAT_LIGHT_NONE ? (int)PW_LIGHT_MODE_NONE                                      \
     : ((F) & PW_FEAT_LIGHTS) == PW_FEAT_LIGHT_MIS  ? (int)PW_LIGHT_MODE_MIS                                       \
                                                    : (any))

/* The render's features: its geometry, material kinds, estimator,
 * splitting, and the walk its view was given (view->flat_spheres and
 * view->wide_bvh, which the backend set). */
PW_HD uint32_t pw_features_of(const pw_scene_view *v, const pw_render_params *prm)
{
    uint32_t f = (v->n_spheres ? PW_FEAT_SPHERES : 0u) | (v->n_tris ? PW_FEAT_TRIANGLES : 0u) |
                 (prm->kinds != PW_KINDS_BASIC ? PW_FEAT_ALL_KINDS : 0u) | (prm->split > 1 ? PW_FEAT_SPLIT : 0u);
    f |= prm->light_mode == PW_LIGHT_MODE_TOY    ? PW_FEAT_LIGHT_TOY
         : prm->light_mode == PW_LIGHT_MODE_NONE ? PW_FEAT_LIGHT_NONE
                                                 : PW_FEAT_LIGHT_MIS;
    f |= v->wide_bvh                          ? PW_FEAT_BVH4
         : v->flat_spheres == PW_FLAT_LIST   ? PW_FEAT_LIST
         : v->flat_spheres == PW_FLAT_GROUPS ? PW_FEAT_GROUPS
                                             : PW_FEAT_BVH2;
    return f;
}

/* Whether a kernel compiled for `kernel` runs a render that needs `need`. */
PW_HD int pw_features_cover(uint32_t kernel, uint32_t need) { return (need & ~kernel) == 0u; }

#endif
