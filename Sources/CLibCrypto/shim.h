#ifndef RECEIPT_RECON_CLIBCRYPTO_SHIM_H
#define RECEIPT_RECON_CLIBCRYPTO_SHIM_H

/* OpenSSL 3's libcrypto: X.509 chains and ES256 (ECDSA P-256 with SHA-256) for Apple's signed data. */
#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/x509_vfy.h>

/* Function-like macros and variadic functions do not import into Swift: one static inline shim each. */

static inline STACK_OF(X509) *recon_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline int recon_sk_X509_push(STACK_OF(X509) *stack, X509 *certificate) { return sk_X509_push(stack, certificate); }
static inline int recon_sk_X509_num(const STACK_OF(X509) *stack) { return sk_X509_num(stack); }
static inline X509 *recon_sk_X509_value(const STACK_OF(X509) *stack, int index) { return sk_X509_value(stack, index); }
/* Frees the stack only: its certificates belong to their own wrappers. */
static inline void recon_sk_X509_free(STACK_OF(X509) *stack) { sk_X509_free(stack); }

static inline void recon_openssl_free(void *pointer) { OPENSSL_free(pointer); }

static inline long recon_bio_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }

/* EVP_EC_gen is a macro over the variadic EVP_PKEY_Q_keygen. */
static inline EVP_PKEY *recon_ec_generate(const char *curve) { return EVP_PKEY_Q_keygen(NULL, NULL, "EC", curve); }

/* EVP_RSA_gen is a macro over the variadic EVP_PKEY_Q_keygen. */
static inline EVP_PKEY *recon_rsa_generate(unsigned int bits) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)bits);
}

/* XN_FLAG_RFC2253 is a macro built of other macros. */
static const unsigned long recon_xn_flag_rfc2253 = XN_FLAG_RFC2253;

#endif
