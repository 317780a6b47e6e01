/* SPDX-License-Identifier: MIT */
/* sluice: status names and descriptions, from SLC_STATUS_LIST. */
#include "sluice/status.h"
#include "sluice/version.h"

static const char *const names[] = {
#define SLC_STATUS_NAME_(name, desc) "SLC_" #name,
    SLC_STATUS_LIST(SLC_STATUS_NAME_)
#undef SLC_STATUS_NAME_
};

static const char *const descriptions[] = {
#define SLC_STATUS_DESC_(name, desc) desc,
    SLC_STATUS_LIST(SLC_STATUS_DESC_)
#undef SLC_STATUS_DESC_
};

_Static_assert(sizeof names / sizeof names[0] == SLC_STATUS_COUNT_, "one name per status");

const char *slc_status_name(slc_status s)
{
    return (unsigned)s < SLC_STATUS_COUNT_ ? names[s] : "SLC_UNKNOWN";
}

const char *slc_status_describe(slc_status s)
{
    return (unsigned)s < SLC_STATUS_COUNT_ ? descriptions[s] : "not a sluice status";
}

uint32_t slc_version(void)
{
    return SLC_VERSION_NUMBER;
}
