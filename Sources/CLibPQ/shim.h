#ifndef RECEIPT_RECON_CLIBPQ_SHIM_H
#define RECEIPT_RECON_CLIBPQ_SHIM_H

#include <libpq-fe.h>

/* Swift does not import character-literal macros such as PG_DIAG_SQLSTATE ('C');
   these constants carry them across. */
static const int CLibPQ_DIAG_SQLSTATE = PG_DIAG_SQLSTATE;
static const int CLibPQ_DIAG_MESSAGE_PRIMARY = PG_DIAG_MESSAGE_PRIMARY;
static const int CLibPQ_DIAG_MESSAGE_DETAIL = PG_DIAG_MESSAGE_DETAIL;
static const int CLibPQ_DIAG_MESSAGE_HINT = PG_DIAG_MESSAGE_HINT;
static const int CLibPQ_DIAG_SEVERITY = PG_DIAG_SEVERITY_NONLOCALIZED;

#endif
