/* Prints the byte size of every hot data layout, once per build (CMake
 * runs it after building it), so that a change to the path state or to a
 * node shows in the build log; the sizes are also checked at compile time
 * where each is declared. */
#include <stdio.h>

#include "backend/wavefront/wavefront_layout.h"
#include "scene/scene.h"

int main(void)
{
    printf("pathwave layouts (bytes): path state %zu (a megakernel thread's), wavefront path slot %zu + %zu a "
           "shadow record, BVH node %zu, 4-wide node %zu, leaf primitive %zu, sphere %zu, material %zu, light %zu, "
           "delta light %zu, spot cone %zu\n",
           sizeof(pw_path), (size_t)PW_WF_SLOT_BYTES, PW_SHADOW_RECORD_BYTES, sizeof(pw_bvh_node), sizeof(pw_bvh4_node),
           sizeof(pw_leaf_prim), sizeof(pw_sphere), sizeof(pw_material), sizeof(pw_light), sizeof(pw_delta_light),
           sizeof(pw_spot_cone));
    return 0;
}
