/* SPDX-License-Identifier: MIT */
// The public headers compile as C++ and link from C++.
#include <sluice/host_store.h>
#include <sluice/platform.h>
#include <sluice/sluice.h>

int main()
{
    slc_budget_id none = SLC_BUDGET_NONE;
    slc_chunk_id no_chunk = SLC_CHUNK_NONE;
    slc_profile p = {};
    return (slc_version() == SLC_VERSION_NUMBER && none.index == SLC_BUDGET_NONE_INDEX &&
            no_chunk.index == SLC_CHUNK_NONE_INDEX &&
            p.budget_count == 0 && slc_status_name(SLC_OK)[0] == 'S')
               ? 0
               : 1;
}
